# fsyncbench: fsync-heavy workloads (append, metadata, fdatasync, O_SYNC)
# with a latency histogram, one key=value line per run, for the flush-cost
# benchmark (docs/benchmark.md).
TOOLS += fsyncbench
fsyncbench_MAIN := fsyncbench/fsyncbench.c
fsyncbench_LIB := fsyncbench/args.c fsyncbench/hist.c fsyncbench/work.c
fsyncbench_TEST := fsyncbench/test/test_fsyncbench.c
