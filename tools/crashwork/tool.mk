# crashwork: fsync workloads with an oracle of what each sync promised,
# and the checker that holds a recovered filesystem to it.
TOOLS += crashwork
crashwork_MAIN := crashwork/crashwork.c
crashwork_LIB := crashwork/record.c crashwork/oracle.c crashwork/check.c \
	crashwork/workload.c crashwork/dmmark.c common/dmctl.c
crashwork_TEST := crashwork/test/test_crashwork.c
