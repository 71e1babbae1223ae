# lwreplay: crash states of a dm-log-writes log, and a checker loop.
TOOLS += lwreplay
lwreplay_MAIN := lwreplay/lwreplay.c
lwreplay_LIB := lwreplay/lwlog.c lwreplay/crash.c lwreplay/apply.c \
	common/fdutil.c common/errbuf.c common/cliopt.c
lwreplay_TEST := $(patsubst $(TOOLS_DIR)/%,%,$(wildcard $(TOOLS_DIR)/lwreplay/test/*.c)) \
	common/testutil.c
