# SPDX-License-Identifier: GPL-2.0
#
# What the two console parsers share (console.awk for make bench,
# kbench-console.awk for make kbench); loaded with -f before either.
#
#   kernel_re   the console lines that mean the kernel complained (the
#               patterns of tools/vmrun's KERNEL_ERROR_RE)
#   clean(s)    s made safe for a record field: no commas (CSV), tabs
#               (records), quotes, CRs or kernel timestamp

BEGIN {
	kernel_re = "WARNING:|BUG:|kernel BUG at|Oops|Kernel panic|general protection fault|soft lockup|hard LOCKUP|self-detected stall|detected stalls|rcu: INFO|blocked for more than|UBSAN:|KASAN:"
}

function clean(s) {
	gsub(/[,\t"]/, ";", s)
	gsub(/\r/, "", s)
	sub(/^\[ *[0-9.]+\] /, "", s)
	return s
}
