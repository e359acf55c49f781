# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# How a run of the upstream locktorture module ended, read from a guest's
# console: sourced by selftests/vm/kernel_tests.sh and tested on fixed
# consoles by selftests/locktorture_verdict_test.sh.  Needs console_text
# from tools/lib/functions.sh.
#
# locktorture prints, per run, a "Writes:" statistics line and for the
# reader-writer types a "Reads :" line:
#
#   lock_torture_stats: Writes:  Total: N  Max/Min: MAX/MIN [???]  Fail: F [!!!]
#
# "!!!" marks exclusion failures; "???" marks a thread that did less than
# half of another's acquisitions.  Upstream's own harness
# (tools/testing/selftests/rcutorture/bin/parse-console.sh) fails a run on
# FAILURE or "!!!" only.  We also fail on a writers' "???": the writers of
# every type contend the lock under test (rw_lock's writers queue on
# qrwlock's wait_lock, which is ours), and ours is FIFO.  A readers' "???"
# is reported, not failed: rw_lock's readers share the lock and take ours
# only while a writer is in the way, so their counts follow how much CPU
# each reader thread got.  At 4x (8 vCPUs on 2 host CPUs) that reached
# Max/Min 2.07-2.1 in 3 of 12 runs of the test kernel, on both the ipi and
# the nmi backend, while the writers stayed within 1.8.

# lt_section CONSOLE TYPE: the part of CONSOLE between guest_locktorture.sh's
# markers for TYPE.
lt_section() {
	console_text "$1" | sed -n "/locktorture-run: start $2\$/,/locktorture-run: done $2 /p"
}

# lt_stats SECTION: locktorture's Writes/Reads statistics lines in it.
lt_stats() {
	grep -aE '(Writes|Reads ):  Total:' <<<"$1"
}

# lt_verdict SECTION: one word for how the run ended:
#   ok         SUCCESS, no "!!!", no writers' "???" (readers' may be there:
#              see lt_readers_imbalance)
#   imbalance  SUCCESS, no "!!!", but a writers' "???"
#   failure    not SUCCESS, or a "!!!"
#   no-stats   SUCCESS without a statistics line
lt_verdict() {
	local sec=$1 stats
	stats=$(lt_stats "$sec")
	if ! grep -aq 'End of test: SUCCESS' <<<"$sec" || grep -aq '!!!' <<<"$stats"; then
		echo failure
	elif [[ -z $stats ]]; then
		echo no-stats
	elif grep -a 'Writes:' <<<"$stats" | grep -aq '???'; then
		echo imbalance
	else
		echo ok
	fi
}

# lt_readers_imbalance SECTION: true if the readers' line has "???".
lt_readers_imbalance() {
	lt_stats "$1" | grep -a 'Reads :' | grep -aq '???'
}
