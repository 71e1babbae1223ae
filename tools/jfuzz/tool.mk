# jfuzz: deterministic mutations of the jbd2 journal of an ext4 image that
# still needs recovery, for the journal fuzzing harness.
TOOLS += jfuzz
jfuzz_MAIN := jfuzz/jfuzz.c
jfuzz_LIB := jfuzz/crc32c.c jfuzz/image.c jfuzz/journal.c jfuzz/mutate.c \
	common/fdutil.c common/errbuf.c common/cliopt.c
jfuzz_TEST := $(patsubst $(TOOLS_DIR)/%,%,$(wildcard $(TOOLS_DIR)/jfuzz/test/*.c)) \
	common/testutil.c
