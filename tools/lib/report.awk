# SPDX-License-Identifier: GPL-2.0
#
# Markdown tables from the benchmark's per-run CSV (tools/bench writes it,
# see Documentation/bench.rst).  Needs tools/lib/stats.awk and
# tools/lib/format.awk loaded first.
#
#   awk -f stats.awk -f format.awk -f report.awk -v mode=report  [-v baseline=T] [-v anchor=TEXT] runs.csv
#   awk -f stats.awk -f format.awk -f report.awk -v mode=compare a.csv b.csv
#   awk -f stats.awk -f format.awk -f report.awk -v mode=plot    runs.csv
#
# mode=report: one table per metric, rows = overcommit levels, columns =
# lock types, cells = mean (stdev) and the signed %-change against the
# baseline type at the same level, with the t-test's verdict.
# mode=compare: the same metrics for two result sets, one row per level and
# type, B against A.
# mode=plot: "level mean stdev" blocks of throughput, one per type, for
# gnuplot (each block starts with "# type").
# mode=ratioplot: the same blocks of each type's ratio to tas in the same
# guest (to the baseline when tas was not measured), for the linear plot;
# a first line "#ref T" names the reference.
#
# The pseudo-type "ceiling" (tools/bench: tas with a lock per writer) is
# the testbed's limit: it has a column in the throughput and efficiency
# tables only, and efficiency = throughput / ceiling in the same guest.
#
# Other variables: test (welch|student, default welch), conf (default 0.95).
# Columns are found by name in each file's header, so files written by
# different versions (other lock events, say) still compare.

BEGIN {
	FS = ","
	if (mode == "")
		mode = "report"
	if (baseline == "")
		baseline = "spin_lock"
	ST_METHOD = test == "" ? "welch" : test
	ST_CONF = conf == "" ? 0.95 : conf
	nset = 0
	nlevels = ntypes = nfailed = 0
	failed_total = runs_total = 0

	# Metric id, direction (1: higher is better), format, title.
	nm = 0
	metric("throughput", 1, "si", "Throughput: lock acquisitions per second, all threads")
	metric("retention", 1, "ratio", "Retention: throughput at Nx / the same type's throughput at 1x (physical ideal about 1.0)")
	metric("ratio", 1, "ratio", "Ratio to the baseline: throughput / the baseline type's throughput in the same guest")
	metric("ratio_tas", 1, "ratio", "Ratio to tas: throughput / test-and-set's throughput in the same guest")
	metric("efficiency", 1, "ratio", "Efficiency: throughput / the ceiling's throughput in the same guest (ceiling: tas with a lock per writer, no lock shared)")
	metric("maxmin", 0, "si", "Fairness: per-thread max/min acquisitions (locktorture flags > 2)")
	metric("jain", 1, "ratio", "Fairness: Jain's index over per-thread acquisitions (1 = even)")
	metric("p99", 0, "ns", "Wait time, 99th percentile (lock call to lock owned)")
	metric("halts", 0, "small", "PV halts per 1000 acquisitions")
	metric("kicks", 0, "small", "PV kicks per 1000 acquisitions")
	metric("spurious", 0, "small", "PV spurious wakeups per 1000 acquisitions")
	metric("steals", 0, "small", "Lock steals past the queue per 1000 acquisitions")
	metric("hash_hops", 0, "small", "PV hash-table extra probes per 1000 acquisitions")
	metric("nmis", 0, "small", "NMI kicks sent per 1000 acquisitions (pv_backend nmi, strict)")
	metric("nmi_spurious", 0, "small", "NMI kicks that found no halted waiter, per 1000 acquisitions (harmless: the CPU was not waiting, or another NMI had claimed it)")

	# Which lock events make up each PV counter (absent ones count 0).
	pvdef["halts"] = "wait_node wait_head wait_again taken_slow"
	pvdef["kicks"] = "kick_unlock released_slow_kicked"
	pvdef["spurious"] = "spurious"
	pvdef["steals"] = "lock_stealing unfair_steal"
	pvdef["hash_hops"] = "hash_hops"
	pvdef["nmis"] = "nmi_kick_sent"
	pvdef["nmi_spurious"] = "nmi_kick_not_waiting nmi_kick_late"
	# Tables left out of a run in which no type had such an event.
	only_if_any["nmis"] = only_if_any["nmi_spurious"] = 1
}

function metric(id, higher, format, title) {
	mid[++nm] = id
	mhigher[id] = higher
	mfmt[id] = format
	mtitle[id] = title
}

FNR == 1 {
	nset++
	for (i = 1; i <= NF; i++)
		col[nset, $i] = i
	hasevents[nset] = ((nset, "wait_node") in col) || ((nset, "taken_slow") in col)
	next
}

function get(name) {
	return (nset, name) in col ? $(col[nset, name]) : ""
}

function add_type(t) {
	if (t in istype)
		return
	istype[t] = 1
	type[++ntypes] = t
}

{
	l = sprintf("%g", get("level") + 0)
	t = get("type")
	r = get("rep")
	add_level(l)
	add_type(t)
	vcpus[l] = get("vcpus")
	k = nset SUBSEP l SUBSEP t
	nruns[k]++
	runs_total++
	if (get("status") != "ok") {
		nfail[k]++
		failed_total++
		failrow[++nfailed] = sprintf("%sx | %s | %s | %s | %s |",
			l, r, t, get("status"), get("reason"))
		failset[nfailed] = nset
		next
	}
	reps[k] = reps[k] " " r
	acq = get("acq") + 0
	min = get("min") + 0
	R[nset, "throughput", l, t, r] = get("acq_per_sec") + 0
	# A starved thread (min 0) would make the ratio infinite: count it 1.
	R[nset, "maxmin", l, t, r] = (get("max") + 0) / (min > 0 ? min : 1)
	R[nset, "jain", l, t, r] = get("jain") + 0
	R[nset, "p99", l, t, r] = get("p99_ns") + 0
	if (hasevents[nset] && acq > 0)
		for (c in pvdef) {
			n = split(pvdef[c], ev, " ")
			sum = 0
			for (i = 1; i <= n; i++)
				sum += get(ev[i]) + 0
			R[nset, c, l, t, r] = 1000 * sum / acq
		}
}

# The runs of (set, level, type) as a sample of metric m.
function sample(s, m, l, t,    n, rr, i, v, out, x, y) {
	out = ""
	n = split(reps[s, l, t], rr, " ")
	for (i = 1; i <= n; i++) {
		if (m == "retention") {
			# Pairs runs by repetition number: run r at 1x and
			# run r at Nx are independent guests, so each ratio
			# carries both levels' noise.
			if (!((s, "throughput", "1", t, rr[i]) in R))
				continue
			y = R[s, "throughput", "1", t, rr[i]]
			x = R[s, "throughput", l, t, rr[i]]
			if (y <= 0)
				continue
			v = x / y
		} else if (m in refof) {
			# Same guest, same repetition: the pairing is real.
			if (!((s, "throughput", l, refof[m], rr[i]) in R))
				continue
			y = R[s, "throughput", l, refof[m], rr[i]]
			if (y <= 0)
				continue
			v = R[s, "throughput", l, t, rr[i]] / y
		} else {
			if (!((s, m, l, t, rr[i]) in R))
				continue
			v = R[s, m, l, t, rr[i]]
		}
		out = out (out == "" ? "" : " ") v
	}
	return out
}

function fmt_ns(x,    a) {
	a = x < 0 ? -x : x
	if (a >= 1e9)
		return fmt_si(x / 1e9) " s"
	if (a >= 1e6)
		return fmt_si(x / 1e6) " ms"
	if (a >= 1e3)
		return fmt_si(x / 1e3) " us"
	return fmt_si(x) " ns"
}

function fmt(m, x) {
	if (mfmt[m] == "ns")
		return fmt_ns(x)
	if (mfmt[m] == "ratio")
		return x >= 1000 ? fmt_si(x) : sprintf("%.3f", x)
	return fmt_si(x)
}

function mean_sd(m, smp) {
	if (st_n(smp) < 2)
		return fmt(m, st_mean(smp)) " (n=1)"
	return fmt(m, st_mean(smp)) " (" fmt(m, st_sd(smp)) ")"
}

function pct(m, ref, x) {
	return fmt_pct(ref, x, mhigher[m])
}

# " [1/3 failed]", or "" when every run of the cell succeeded.
function failnote(k) {
	return nfail[k] ? " [" nfail[k] "/" nruns[k] " failed]" : ""
}

function level_label(l) {
	return l "x (" vcpus[l] " vCPU" (vcpus[l] == 1 ? "" : "s") ")"
}

# Is every value of metric m zero (or absent) for type t in set s?
function all_zero(s, m, t,    i, smp) {
	for (i = 1; i <= nlevels; i++) {
		smp = sample(s, m, level[i], t)
		if (smp != "" && st_mean(smp) != 0)
			return 0
	}
	return 1
}

function any_event(m,    j) {
	for (j = 1; j <= ntypes; j++)
		if (!all_zero(1, m, type[j]))
			return 1
	return 0
}

function legend(m, what) {
	printf "%s is better. ", mhigher[m] ? "Higher" : "Lower"
	printf "Absolute numbers are emulated (QEMU TCG) and not comparable with hardware; "
	printf "only ratios within one run count.\n"
	printf "Cells: mean (stdev) over the successful runs; %s\n\n", what
}

function report_table(m,    i, j, l, t, k, ref, smp, cell, pvtab, base0, shown, nshown, omitted, heads) {
	pvtab = (m in pvdef)
	if (!shown_metric(m))
		return
	# Ratio to tas: a table of its own unless tas is the baseline.
	if (m == "ratio_tas" && baseline == "tas")
		return
	printf "### %s\n\n", mtitle[m]
	base0 = pvtab && all_zero(1, m, baseline)
	if (m in refof)
		legend(m, refof[m] " is 1 by definition; " \
		       "* = differs from 1 at " ST_CONF * 100 "% confidence " \
		       "(" testname() "), neutral = does not.")
	else if (base0)
		legend(m, "no %-change: the baseline " baseline " has none of these events.")
	else
		legend(m, "signed %-change against " baseline " at the same level " \
		       "(positive = better); * = significant at " ST_CONF * 100 \
		       "% confidence (" testname() "), neutral = not significant, " \
		       "n/a = fewer than 2 runs.")
	# PV tables: only the types that have any such event.
	nshown = 0
	omitted = ""
	for (j = 1; j <= ntypes; j++) {
		t = type[j]
		if (!has_column(m, t))
			continue
		if (pvtab && t != baseline && all_zero(1, m, t)) {
			omitted = omitted (omitted == "" ? "" : ", ") t
			continue
		}
		if (pvtab && t == baseline && base0) {
			omitted = omitted (omitted == "" ? "" : ", ") t
			continue
		}
		shown[++nshown] = t
	}
	if (nshown == 0) {
		printf "No type had any such event.\n\n"
		return
	}
	for (j = 1; j <= nshown; j++)
		heads[j] = tlabel(shown[j]) (shown[j] == baseline ? " (baseline)" : \
				     shown[j] == "ceiling" ? " (limit)" : "")
	md_head("overcommit", 1, heads, nshown)
	for (i = 1; i <= nlevels; i++) {
		l = level[i]
		printf "| %s |", level_label(l)
		ref = sample(1, m, l, baseline)
		for (j = 1; j <= nshown; j++) {
			t = shown[j]
			k = 1 SUBSEP l SUBSEP t
			smp = sample(1, m, l, t)
			if (!nruns[k])
				cell = "-"
			else if (nfail[k] == nruns[k])
				cell = "FAILED (" nfail[k] "/" nruns[k] ")"
			else if (smp == "")
				cell = "-"
			else if ((m == "retention" && l == "1") ||
				 ((m in refof) && t == refof[m]))
				cell = "1 (reference)"
			else if (m in refof) {
				cell = mean_sd(m, smp) " " \
				       verdict(sample(1, m, l, refof[m]), smp) failnote(k)
			} else {
				cell = mean_sd(m, smp)
				if (t != baseline && ref != "" && !base0) {
					if (m != "ratio")
						cell = cell " " pct(m, st_mean(ref), st_mean(smp))
					cell = cell " " verdict(ref, smp)
				}
				cell = cell failnote(k)
			}
			printf " %s |", cell
		}
		printf "\n"
	}
	if (omitted != "")
		printf "\nAll zero (not shown): %s.\n", omitted
	printf "\n"
}

# A type's column head: spin_lock named for what it is on the run's
# testbed (-v anchor, e.g. "upstream PV qspinlock"), when the run says.
function tlabel(t) {
	return (t == "spin_lock" && anchor != "") ? t " = " anchor : t
}

function testname() {
	return ST_METHOD == "student" ? "Student's t, pooled variance" : "Welch's t-test"
}

# Does metric m get a comparison table (tools/compare) and cells in its
# JSON?  The in-guest counters only when both runs counted; no table
# without a row.
function compared_metric(m,    i, j) {
	if ((m in pvdef) && !(hasevents[1] && hasevents[2]))
		return 0
	if (!has_table(m))
		return 0
	for (i = 1; i <= nlevels; i++)
		for (j = 1; j <= ntypes; j++)
			if (compared_row(m, level[i], type[j]))
				return 1
	return 0
}

# Does the comparison of metric m have a row for type t at level l?  One
# rule for the table and the JSON.
function compared_row(m, l, t) {
	if (!has_column(m, t))
		return 0
	if ((m in pvdef) && all_zero(1, m, t) && all_zero(2, m, t))
		return 0
	if (m == "retention" && l == "1")
		return 0
	return nruns[1 SUBSEP l SUBSEP t] || nruns[2 SUBSEP l SUBSEP t]
}

function compare_table(m,    i, j, l, t, a, b, ka, kb, ca, cb, change, v) {
	if (!compared_metric(m))
		return
	printf "### %s\n\n", mtitle[m]
	if (m == "ratio")
		printf "Baseline type: %s.\n", baseline
	legend(m, "change = B against A, signed so that positive is better; " \
	       "* = significant at " ST_CONF * 100 "% confidence (" testname() \
	       "), neutral = not significant, n/a = fewer than 2 runs.")
	printf "| overcommit | type | A | B | change | verdict |\n"
	printf "|---|---|---:|---:|---:|---|\n"
	for (i = 1; i <= nlevels; i++) {
		l = level[i]
		for (j = 1; j <= ntypes; j++) {
			t = type[j]
			if (!compared_row(m, l, t))
				continue
			ka = 1 SUBSEP l SUBSEP t
			kb = 2 SUBSEP l SUBSEP t
			a = sample(1, m, l, t)
			b = sample(2, m, l, t)
			ca = compare_cell(m, ka, a)
			cb = compare_cell(m, kb, b)
			change = v = ""
			if (a != "" && b != "") {
				change = pct(m, st_mean(a), st_mean(b))
				v = verdict(a, b)
			}
			printf "| %s | %s | %s | %s | %s | %s |\n", level_label(l), t, ca, cb, change, v
		}
	}
	printf "\n"
}

function compare_cell(m, k, smp) {
	if (!nruns[k])
		return "-"
	if (nfail[k] == nruns[k])
		return "FAILED (" nfail[k] "/" nruns[k] ")"
	if (smp == "")
		return "-"
	return mean_sd(m, smp) failnote(k)
}

function failures(    i) {
	printf "### Failed runs\n\n"
	if (nfailed == 0) {
		printf "None: %d of %d runs succeeded.\n\n", runs_total, runs_total
		return
	}
	printf "%d of %d runs failed; they are left out of every mean above and counted in their cells.\n\n", failed_total, runs_total
	if (mode == "compare")
		printf "| set "
	printf "| level | run | type | status | reason |\n"
	if (mode == "compare")
		printf "|---"
	printf "|---|---|---|---|---|\n"
	for (i = 1; i <= nfailed; i++) {
		if (mode == "compare")
			printf "| %s ", (failset[i] == 1 ? "A" : "B")
		printf "| %s\n", failrow[i]
	}
	printf "\n"
}

# Throughput (m "throughput"), or the in-guest ratio to refof["ratioplot"]
# (m "ratioplot"), for which the reference itself and the ceiling have no
# line.
function plot(m,    i, j, l, t, smp) {
	if (m == "ratioplot")
		printf "#ref %s\n", refof[m]
	for (j = 1; j <= ntypes; j++) {
		t = type[j]
		if (m == "ratioplot" && (t == refof[m] || t == "ceiling"))
			continue
		printf "# %s\n", t
		for (i = 1; i <= nlevels; i++) {
			l = level[i]
			smp = sample(1, m, l, t)
			if (smp != "")
				printf "%s %.6g %.6g\n", l, st_mean(smp), st_sd(smp)
		}
		printf "\n\n"
	}
}

# Has metric m a table at all?  Retention needs level 1; an in-guest
# ratio needs its reference measured.
function has_table(m) {
	if (m == "retention" && !("1" in islevel))
		return 0
	return !(m in refof) || (refof[m] in istype)
}

# Does metric m have a column for type t?  The ceiling is no lock: only
# its throughput, and its efficiency (1), mean anything.
function has_column(m, t) {
	return t != "ceiling" || m == "throughput" || m == "efficiency"
}

# JSON (mode=json, tools/bench-report's report.json; mode=comparejson,
# tools/compare --json): the tables' cells as numbers, one object each.
# {"runs": N, "failed": N, "mean": X, "stdev": X} of cell k's sample
# (null mean and stdev without a successful run, null stdev with one).
function json_stats(k, smp,    n) {
	n = smp == "" ? 0 : st_n(smp)
	return sprintf("\"runs\": %d, \"failed\": %d, \"mean\": %s, \"stdev\": %s",
		       n, nfail[k], n ? json_num(st_mean(smp)) : "null",
		       n >= 2 ? json_num(st_sd(smp)) : "null")
}

function json_cell_sep() {
	printf "%s\n    ", njson++ ? "," : ""
}

# Does metric m get a table in the report (and cells in its JSON)?
function shown_metric(m) {
	if ((m in pvdef) && !hasevents[1])
		return 0
	if ((m in only_if_any) && !any_event(m))
		return 0
	return has_table(m)
}

function json_report(    i, j, l, t, m, k, smp, ref, refmean, v, r) {
	printf "{\n  \"baseline\": %s,\n  \"statistics\": %s,\n  \"confidence\": %s,\n", \
	       json_str(baseline), json_str(ST_METHOD), json_num(ST_CONF)
	printf "  \"cells\": ["
	for (i = 1; i <= nm; i++) {
		m = mid[i]
		if (!shown_metric(m))
			continue
		for (r = 1; r <= nlevels; r++) {
			l = level[r]
			ref = sample(1, m, l, (m in refof) ? refof[m] : baseline)
			for (j = 1; j <= ntypes; j++) {
				t = type[j]
				k = 1 SUBSEP l SUBSEP t
				if (!has_column(m, t) || !nruns[k])
					continue
				smp = sample(1, m, l, t)
				json_cell_sep()
				printf "{\"metric\": %s, \"higher_is_better\": %s, \"level\": %s, \"type\": %s, %s", \
				       json_str(m), mhigher[m] ? "true" : "false", json_num(l),
				       json_str(t), json_stats(k, smp)
				printf ", \"reference\": %s", json_str((m in refof) ? refof[m] : baseline)
				# Ratio metrics are their own ratio; the others
				# get the ratio of the means to the baseline's.
				refmean = ref == "" ? 0 : st_mean(ref)
				if (!(m in refof))
					printf ", \"ratio_to_reference\": %s",
					       (smp != "" && refmean > 0 ? json_num(st_mean(smp) / refmean) : "null")
				v = (t == ((m in refof) ? refof[m] : baseline) || smp == "" || ref == "") ? "null" : json_str(verdict(ref, smp))
				printf ", \"verdict\": %s}", v
			}
		}
	}
	printf "\n  ],\n  \"runs\": %d,\n  \"failed_runs\": %d\n}\n", runs_total, failed_total
}

function json_compare(    i, j, l, t, m, ka, kb, a, b, r, ma) {
	printf "{\n  \"baseline\": %s,\n  \"statistics\": %s,\n  \"confidence\": %s,\n", \
	       json_str(baseline), json_str(ST_METHOD), json_num(ST_CONF)
	printf "  \"cells\": ["
	for (i = 1; i <= nm; i++) {
		m = mid[i]
		if (!compared_metric(m))
			continue
		for (r = 1; r <= nlevels; r++) {
			l = level[r]
			for (j = 1; j <= ntypes; j++) {
				t = type[j]
				if (!compared_row(m, l, t))
					continue
				ka = 1 SUBSEP l SUBSEP t
				kb = 2 SUBSEP l SUBSEP t
				a = sample(1, m, l, t)
				b = sample(2, m, l, t)
				json_cell_sep()
				printf "{\"metric\": %s, \"higher_is_better\": %s, \"level\": %s, \"type\": %s, ", \
				       json_str(m), mhigher[m] ? "true" : "false", json_num(l), json_str(t)
				printf "\"a\": {%s}, \"b\": {%s}", json_stats(ka, a), json_stats(kb, b)
				ma = a == "" ? 0 : st_mean(a)
				# Signed so that positive is better, as the table.
				printf ", \"change_pct\": %s, \"verdict\": %s}",
				       a != "" && b != "" && ma != 0 ? json_num((st_mean(b) - ma) / (ma < 0 ? -ma : ma) * 100 * (mhigher[m] ? 1 : -1)) : "null",
				       a != "" && b != "" ? json_str(verdict(a, b)) : "null"
			}
		}
	}
	printf "\n  ]\n}\n"
}

END {
	if (nset == 0)
		exit 1
	# The in-guest ratios: to what each is taken.
	refof["ratio"] = baseline
	refof["ratio_tas"] = "tas"
	refof["efficiency"] = "ceiling"
	refof["ratioplot"] = ("tas" in istype) ? "tas" : baseline
	if (mode == "plot" || mode == "ratioplot") {
		plot(mode == "plot" ? "throughput" : "ratioplot")
		exit 0
	}
	if (mode == "json") {
		json_report()
		exit 0
	}
	if ((mode == "compare" || mode == "comparejson") && nset != 2) {
		print "report.awk: compare needs exactly two files" > "/dev/stderr"
		exit 2
	}
	if (mode == "comparejson") {
		json_compare()
		exit 0
	}
	if (mode == "compare") {
		for (i = 1; i <= nm; i++)
			compare_table(mid[i])
	} else {
		for (i = 1; i <= nm; i++)
			report_table(mid[i])
	}
	failures()
}
