// SPDX-License-Identifier: GPL-2.0
#include "tinytest.h"

extern const struct tt_case lwlog_cases[];
extern const struct tt_case crash_cases[];
extern const struct tt_case apply_cases[];
extern const struct tt_case cli_cases[];
extern const struct tt_case fuzz_cases[];

int main(int argc, char **argv)
{
	const struct tt_suite suites[] = {
		{ "lwreplay/lwlog", lwlog_cases },
		{ "lwreplay/crash", crash_cases },
		{ "lwreplay/apply", apply_cases },
		{ "lwreplay/cli", cli_cases },
		{ "lwreplay/fuzz", fuzz_cases },
		{ 0 },
	};

	return tt_main(argc, argv, suites);
}
