# dmload: load a one-target device-mapper table and make it live, in one
# small static process (the crash checker does this once per crash state).
TOOLS += dmload
dmload_MAIN := dmload/dmload.c
dmload_LIB := common/dmctl.c
