# SPDX-License-Identifier: GPL-2.0
#
# One guest's console log -> one record per torture run, for tools/bench.
#
#   awk -v types="t1 t2 ..." -v fixed="level=2<TAB>vcpus=4<TAB>..." \
#       -v vmstatus=pass|fail|timeout -v vmreason="..." \
#       -f console-common.awk -f console.awk console.log
#
# types lists the runs in the order they were passed to vmrun, by the name
# the report gives them; torture_types (optional, same order) the
# torture_type each run loaded, where that differs (tools/bench's ceiling
# and variants).  Each output
# line is tab-separated name=value pairs: the fixed pairs, then order, type,
# status (ok, fail or timeout), reason, then every pair of the run's
# "summary:" line (Documentation/torture.rst).  A run whose summary line is
# missing still gets a line, with its status and reason, so that a failed
# cell is reported and never silently dropped.
#
# A run fails when its summary says result=FAILURE, its insmod failed, or
# the kernel complained (the patterns of tools/vmrun's KERNEL_ERROR_RE)
# while it ran.  Trouble before the first run (boot, loading the library)
# is blamed on every run; a run that printed its summary before the guest
# failed or timed out later keeps its numbers.

BEGIN {
	FS = "\n"
	nruns = split(types, order, " ")
	if (torture_types == "")
		torture_types = types
	split(torture_types, loaded, " ")
	cur = 0
}

# The first problem of a run is its reason: "category: text".
function problem(run, category, why) {
	if (!(run in trouble))
		trouble[run] = category ": " clean(why)
}

/vmrun: run [0-9]+ start:/ {
	s = $0
	sub(/.*vmrun: run /, "", s)
	sub(/ .*/, "", s)
	cur = s + 0
	next
}

/vmrun: run [0-9]+ insmod status [1-9]/ {
	s = $0
	sub(/.*insmod status /, "", s)
	problem(cur, "insmod", "status " s)
	next
}

/vmrun: / {
	next
}

/-torture: summary: / {
	s = $0
	sub(/.*-torture: summary: /, "", s)
	gsub(/\r/, "", s)
	summary[cur] = s
	next
}

# The module's own complaint (a refused parameter, say) explains an insmod
# failure.
/-torture: / && !/-torture: (---|Writes:)/ {
	if (!(cur in said))
		said[cur] = clean($0)
}

$0 ~ kernel_re {
	problem(cur, "kernel", $0)
}

function field(s, name,    n, kv, i) {
	n = split(s, kv, " ")
	for (i = 1; i <= n; i++)
		if (index(kv[i], name "=") == 1)
			return substr(kv[i], length(name) + 2)
	return ""
}

END {
	for (i = 1; i <= nruns; i++) {
		status = "ok"
		reason = ""
		if (i in summary) {
			if (field(summary[i], "type") != loaded[i]) {
				status = "fail"
				reason = "summary of type " field(summary[i], "type") \
					 " in the run of " loaded[i]
			} else if (field(summary[i], "result") != "SUCCESS") {
				status = "fail"
				reason = "torture: result=" field(summary[i], "result") \
					 " fail=" field(summary[i], "fail") \
					 " lost=" field(summary[i], "lost")
			} else if (i in trouble) {
				status = "fail"
				reason = trouble[i]
			} else if (0 in trouble) {
				status = "fail"
				reason = "before the runs: " trouble[0]
			}
		} else {
			status = vmstatus == "timeout" ? "timeout" : "fail"
			if (i in trouble) {
				# It failed by itself, before any timeout.
				status = "fail"
				reason = trouble[i] (i in said ? "; " said[i] : "")
			} else if (0 in trouble) {
				reason = "before the runs: " trouble[0]
			} else if (vmreason != "")
				reason = clean(vmreason)
			else
				reason = "no summary line"
		}
		line = fixed "\torder=" i "\ttype=" order[i] "\tstatus=" status \
		       "\treason=" reason
		if (i in summary) {
			n = split(summary[i], kv, " ")
			for (j = 1; j <= n; j++)
				if (index(kv[j], "type=") != 1 && index(kv[j], "=") > 1)
					line = line "\t" kv[j]
		}
		print line
	}
}
