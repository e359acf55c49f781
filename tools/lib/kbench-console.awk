# SPDX-License-Identifier: GPL-2.0
#
# One kbench guest's console log -> one record per workload, for
# tools/kbench (the guest side is tools/lib/kbench-guest.sh).
#
#   awk -v workloads="w1 w2 ..." -v fixed="kernel=pv<TAB>level=2<TAB>..." \
#       -v vmstatus=pass|fail|timeout -v vmreason="..." \
#       -f console-common.awk -f kbench-console.awk console.log
#
# Each output line is tab-separated name=value pairs: the fixed pairs, then
# order, workload, status (ok or fail), reason, value (the workload's
# throughput, parsed from the tool's own output), unit, elapsed (seconds the
# workload ran, measured in the guest), late (seconds the guest started it
# after its slot began), and ev_NAME=VALUE for each lock event counter the
# kernel has (CONFIG_PVQ_LOCK_STATS).  A workload that did not run, did not
# end, exited non-zero, printed no result, or ran while the kernel
# complained, fails: it still gets a line, with its reason, and no value.

BEGIN {
	FS = "\n"
	nw = split(workloads, order, " ")
	cur = ""
}

function problem(w, why) {
	if (!(w in trouble))
		trouble[w] = clean(why)
}

# The text after the first occurrence of tag (e.g. "kbench-out: ").
function after(s, tag) {
	return substr(s, index(s, tag) + length(tag))
}

# Field i (1-based, blank-separated) of s.
function word(s, i,    f) {
	split(s, f, " ")
	return f[i]
}

{
	sub(/\r$/, "")
}

/kbench: begin / {
	cur = word(after($0, "kbench: begin "), 1)
	begun[cur] = 1
	if (pending_trouble != "")
		problem(cur, pending_trouble)
	late[cur] = word(after($0, " late "), 1) + 0
	next
}

/kbench: end / {
	s = after($0, "kbench: end ")
	w = word(s, 1)
	ended[w] = 1
	rc[w] = word(after(s, " status "), 1)
	elapsed[w] = word(after(s, " elapsed "), 1)
	if (rc[w] != "0")
		problem(w, "exit status " rc[w] (w in lastout ? ": " lastout[w] : ""))
	cur = ""
	next
}

/kbench-events: / {
	s = after($0, "kbench-events: ")
	w = word(s, 1)
	name = word(s, 2)
	if (!((w, name) in ev)) {
		evnames[w] = evnames[w] " " name
	}
	ev[w, name] = word(s, 3)
	next
}

/kbench-out: / {
	s = after($0, "kbench-out: ")
	w = word(s, 1)
	line = substr(s, length(w) + 2)
	if (line ~ /[^ ]/)
		lastout[w] = clean(line)
	parse_output(w, line)
	next
}

# Kernel trouble while a workload ran is that workload's; before the
# first one, or between two, every later workload's (one that ended before
# it keeps its result).
$0 ~ kernel_re && $0 !~ /vmrun: |kbench/ {
	if (cur != "")
		problem(cur, "kernel: " $0)
	else
		if (pending_trouble == "")
			pending_trouble = "kernel: " $0
	next
}

function parse_output(w, line,    f, n, i) {
	if (w == "dbench") {
		if (line ~ /^Throughput [0-9.]+ MB\/sec/)
			val[w] = word(line, 2)
	} else if (w == "hackbench") {
		if (line ~ /^kbench-params: groups /) {
			hb_groups = word(line, 3)
			hb_loops = word(line, 5)
		} else if (line ~ /using [0-9]+ file descriptors/) {
			# Senders and receivers: fds/2 of each per group.
			hb_fds = word(after(line, " using "), 1) / 2
		} else if (line ~ /^Time: [0-9.]+/) {
			hb_runs++
			hb_time += word(line, 2)
		}
	} else if (w == "futex") {
		if (line ~ /^Run summary .*: [0-9]+ threads/)
			fx_threads = word(after(line, "]: "), 1)
		else if (line ~ /^Averaged [0-9]+ operations\/sec/)
			fx_avg = word(line, 2)
	} else if (w == "memory") {
		# "stress-ng: metrc: [pid] STRESSOR OPS REAL USR SYS OPS/S OPS/S":
		# the bogo ops per second of real time.  (Stressors may add
		# lines of other metrics under the same name.)
		if (line ~ /metrc: \[[0-9]+\] [a-z-]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ *$/ && !(w in val)) {
			split(after(line, "] "), f, " ")
			val[w] = f[6]
		}
	} else if (is_locktorture(w)) {
		if (line ~ /^kbench-elapsed: /)
			lt_elapsed[w] = word(line, 2)
		else if (line ~ /Writes: +Total: [0-9]+/) {
			lt_total[w] = word(after(line, "Total: "), 1)
			if (line ~ /!!!/)
				problem(w, "locktorture: " line)
		} else if (line ~ /End of test: /) {
			# "End of test: SUCCESS: nwriters_stress=..."
			lt_result[w] = word(after(line, "End of test: "), 1)
			sub(/:$/, "", lt_result[w])
		}
	}
}

# The results of the workloads that report pieces.
function finish(    w) {
	if (hb_runs && hb_time > 0 && hb_groups && hb_loops && hb_fds)
		val["hackbench"] = hb_groups * hb_fds * hb_fds * hb_loops * hb_runs / hb_time
	if (fx_threads && fx_avg != "")
		val["futex"] = fx_avg * fx_threads
	for (w in lt_total)
		if (lt_elapsed[w] > 0 && lt_total[w] != "")
			val[w] = lt_total[w] / lt_elapsed[w]
	for (w in lt_result)
		if ((w in begun) && lt_result[w] != "" && lt_result[w] != "SUCCESS")
			problem(w, "locktorture: End of test: " lt_result[w])
}

# locktorture (torture_type=spin_lock) and locktorture_irq (spin_lock_irq)
# print the same lines.
function is_locktorture(w) {
	return w == "locktorture" || w == "locktorture_irq"
}

function unit(w) {
	if (w == "dbench")
		return "MB/s"
	if (w == "hackbench")
		return "messages/s"
	if (w == "futex")
		return "ops/s"
	if (w == "memory")
		return "bogo-ops/s"
	if (is_locktorture(w))
		return "writes/s"
	return ""
}

END {
	finish()
	for (i = 1; i <= nw; i++) {
		w = order[i]
		reason = ""
		if (!(w in begun))
			reason = "not run: guest " vmstatus (vmreason != "" ? ": " clean(vmreason) : "")
		else if (!(w in ended))
			reason = "did not end: guest " vmstatus (vmreason != "" ? ": " clean(vmreason) : "")
		else if (w in trouble)
			reason = trouble[w]
		else if (!(w in val) || val[w] + 0 <= 0)
			reason = "no result in the output" (w in lastout ? " (last line: " lastout[w] ")" : "")
		printf "%s\torder=%d\tworkload=%s\tstatus=%s\treason=%s", fixed, i, w,
			reason == "" ? "ok" : "fail", reason
		printf "\tvalue=%s\tunit=%s\telapsed=%s\tlate=%s",
			reason == "" ? sprintf("%.6g", val[w]) : "", unit(w), elapsed[w], late[w]
		n = split(evnames[w], names, " ")
		for (j = 1; j <= n; j++)
			printf "\tev_%s=%s", names[j], ev[w, names[j]]
		printf "\n"
	}
}
