# SPDX-License-Identifier: GPL-2.0
#
# make kbench's report from its per-guest CSV (tools/kbench writes it, see
# Documentation/kbench.rst), in the form of the qspinlock v9 results'
# tables (Raghavendra K T, 27 April 2014).  Needs
# stats.awk and format.awk loaded first.
#
#   awk -f stats.awk -f format.awk -f kbench-report.awk -v mode=report runs.csv
#   awk -f stats.awk -f format.awk -f kbench-report.awk -v mode=plot \
#       -v workload=W runs.csv
#   awk ... -v mode=workloads runs.csv      the workloads, one per line
#
# A cell's sample holds one value per run: the mean over the guests of that
# run's group, which counts only if every guest of the group has a result
# (a failed guest fails the run of its cell).  The counters run (rep 0)
# feeds only the lock activity table.
#
# mode=report: the verdict at 2x (or the highest level), then per
# workload the %-change of each kernel against the reference (-v
# reference=K; by default base, or stock in a run without base) and
# the absolute values, then the lock event rates, failed runs, start skew.
# mode=plot: "level mean stdev" blocks, one per kernel ("# label" first).

BEGIN {
	FS = ","
	if (mode == "")
		mode = "report"
	if (reference == "") {
		reference = "base"
		reference_default = 1
	}
	ST_METHOD = "welch"
	ST_CONF = 0.95
	nlevels = nkernels = nworkloads = nfailed = 0
	label["base"] = "Base (PV ticketlock)"
	label["unfair"] = "A (unfair PV qspinlock)"
	label["native"] = "B (native qspinlock)"
	label["pv"] = "C (PV qspinlock)"
	# -v stock_lock: what the stock kernel's lock is on the run's testbed.
	label["stock"] = stock_lock != "" ? "stock (" stock_lock ")" : "stock (the upstream lock)"
	# Those tables' column order; other kernels follow in order of appearance.
	nfixed = split("base unfair native pv stock", fixed_order, " ")
	# Which lock events make up each rate (absent ones count 0).
	nrates = split("slowpath halts kicks steals spurious", rate_id, " ")
	ratedef["slowpath"] = "slowpath"
	ratedef["halts"] = "wait_node wait_head wait_again taken_slow"
	ratedef["kicks"] = "kick_unlock released_slow_kicked"
	ratedef["steals"] = "lock_stealing unfair_steal"
	ratedef["spurious"] = "spurious"
	ratetitle["slowpath"] = "slow paths/s"
	ratetitle["halts"] = "halts/s"
	ratetitle["kicks"] = "kicks/s"
	ratetitle["steals"] = "steals/s"
	ratetitle["spurious"] = "spurious wakeups/s"
}

NR == 1 {
	for (i = 1; i <= NF; i++)
		col[$i] = i
	next
}

function get(name) {
	return name in col ? $(col[name]) : ""
}

function add_kernel(k) {
	if (!(k in iskernel)) {
		iskernel[k] = 1
		seen_kernel[++nseen] = k
	}
}

function add_workload(w) {
	if (!(w in isworkload)) {
		isworkload[w] = 1
		workload_list[++nworkloads] = w
	}
}

{
	l = sprintf("%g", get("level") + 0)
	k = get("kernel")
	w = get("workload")
	r = get("rep") + 0
	add_level(l)
	add_workload(w)
	shape[l] = get("guests") " guest" (get("guests") == 1 ? "" : "s") " x " get("vcpus") " vCPU" (get("vcpus") == 1 ? "" : "s")
	unit[w] = get("unit")
	if (get("late") + 0 > maxlate)
		maxlate = get("late") + 0
	if (r == 0) {
		counters_kernel = k
	} else {
		add_kernel(k)
		g = w SUBSEP l SUBSEP k SUBSEP r
		if (!(g in nguests))
			runs_of[w, l, k] = runs_of[w, l, k] " " r
		nguests[g]++
		if (get("status") != "ok") {
			bad[g] = 1
			failrow[++nfailed] = sprintf("| %s | %sx | %s | %s | %s | %s |",
				w, l, k, r, get("guest"), get("reason"))
		} else {
			sum[g] += get("value")
		}
	}
	if (get("status") == "ok" && get("elapsed") + 0 > 0)
		add_rates(w, l, k, get("elapsed") + 0)
}

# Per-guest lock event rates, for every record whose kernel counts them.
function add_rates(w, l, k, secs,    i, n, ev, j, s, any) {
	any = 0
	for (i = 1; i <= nrates; i++) {
		n = split(ratedef[rate_id[i]], ev, " ")
		s = 0
		for (j = 1; j <= n; j++)
			if (get("ev_" ev[j]) != "") {
				s += get("ev_" ev[j])
				any = 1
			}
		rsum[w, l, k, rate_id[i]] += s / secs
	}
	if (!any)
		return
	hasrates[k] = 1
	rcount[w, l, k]++
}

function kernel_order(    i, k) {
	nkernels = 0
	for (i = 1; i <= nfixed; i++)
		if (fixed_order[i] in iskernel)
			kernels[++nkernels] = fixed_order[i]
	for (i = 1; i <= nseen; i++) {
		k = seen_kernel[i]
		if (!(k in label))
			kernels[++nkernels] = k
	}
}

# A kernel booted with another PV backend (K@BACKEND, tools/kbench) is
# named after K's label.
function name(k,    b) {
	if (k in label)
		return label[k]
	b = substr(k, 1, index(k, "@") - 1)
	return b in label ? label[b] " on pv_backend=" substr(k, length(b) + 2) : k
}

# The runs of (w, l, k) as a sample: one mean per run, failed runs left out.
function sample(w, l, k,    n, rr, i, g, out) {
	out = ""
	n = split(runs_of[w, l, k], rr, " ")
	for (i = 1; i <= n; i++) {
		g = w SUBSEP l SUBSEP k SUBSEP rr[i]
		if (g in bad)
			continue
		out = out (out == "" ? "" : " ") sum[g] / nguests[g]
	}
	return out
}

function nruns(w, l, k) {
	return split(runs_of[w, l, k], tmp, " ")
}

function failnote(w, l, k,    ok) {
	ok = st_n(sample(w, l, k))
	return ok < nruns(w, l, k) ? " [" nruns(w, l, k) - ok "/" nruns(w, l, k) " failed]" : ""
}

function level_label(l) {
	return l "x (" shape[l] ")"
}

function mean_sd(smp) {
	if (st_n(smp) < 2)
		return fmt_si(st_mean(smp)) " (n=1)"
	return fmt_si(st_mean(smp)) " (" fmt_si(st_sd(smp)) ")"
}

# The level of the verdict: 2x, else the highest measured.
function verdict_level(    i) {
	if ("2" in islevel)
		return "2"
	return level[nlevels]
}

function change_table(w,    i, j, l, k, ref, smp, cell, m, n, heads) {
	printf "%s: %%-change against %s, mean (stdev as %% of %s's mean) and Welch's t-test at 95%%: * = significant, neutral = not, n/a = fewer than 2 runs. Higher is better.\n\n", w, name(reference), reference
	n = 0
	for (j = 1; j <= nkernels; j++)
		if (kernels[j] != reference)
			heads[++n] = name(kernels[j])
	md_head("overcommit", 1, heads, n)
	for (i = 1; i <= nlevels; i++) {
		l = level[i]
		ref = sample(w, l, reference)
		printf "| %s |", level_label(l)
		for (j = 1; j <= nkernels; j++) {
			k = kernels[j]
			if (k == reference)
				continue
			smp = sample(w, l, k)
			if (!nruns(w, l, k))
				cell = "-"
			else if (smp == "")
				cell = "FAILED (" nruns(w, l, k) "/" nruns(w, l, k) ")"
			else if (ref == "" || st_mean(ref) == 0)
				cell = "no reference"
			else {
				m = st_mean(ref)
				cell = fmt_pct(m, st_mean(smp), 1) " (" sprintf("%.1f", st_sd(smp) / m * 100) ") " verdict(ref, smp) failnote(w, l, k)
			}
			printf " %s |", cell
		}
		printf "\n"
	}
	printf "\n"
}

function absolute_table(w,    i, j, l, k, smp, cell, heads) {
	printf "%s: %s per guest, mean (stdev) over the runs.\n\n", w, unit[w]
	for (j = 1; j <= nkernels; j++)
		heads[j] = name(kernels[j])
	md_head("overcommit", 1, heads, nkernels)
	for (i = 1; i <= nlevels; i++) {
		l = level[i]
		printf "| %s |", level_label(l)
		for (j = 1; j <= nkernels; j++) {
			k = kernels[j]
			smp = sample(w, l, k)
			if (!nruns(w, l, k))
				cell = "-"
			else if (smp == "")
				cell = "FAILED (" nruns(w, l, k) "/" nruns(w, l, k) ")"
			else
				cell = mean_sd(smp) failnote(w, l, k)
			printf " %s |", cell
		}
		printf "\n"
	}
	printf "\n"
}

# One line per workload at the verdict level: the best kernel, and how it
# stands against the reference and the stock kernel.
function verdicts(    i, w, l, j, k, best, bm, smp, ref, line, second, v) {
	l = verdict_level()
	printf "### Verdict at %sx\n\n", l
	for (i = 1; i <= nworkloads; i++) {
		w = workload_list[i]
		best = ""
		bm = -1
		for (j = 1; j <= nkernels; j++) {
			k = kernels[j]
			smp = sample(w, l, k)
			if (smp != "" && st_mean(smp) > bm) {
				bm = st_mean(smp)
				best = k
			}
		}
		if (best == "") {
			printf "- %s: no result at %sx.\n", w, l
			continue
		}
		line = sprintf("- %s: %s leads (%s %s)", w, name(best), fmt_si(bm), unit[w])
		if ((second = runner_up(w, l, best)) != "") {
			v = verdict(sample(w, l, second), sample(w, l, best))
			line = line sprintf(", %s ahead of %s (%s%s)", fmt_pct(st_mean(sample(w, l, second)), bm, 1),
				short(second), v, v == "neutral" ? ": no significant winner" : "")
		}
		if (best != reference && second != reference && (ref = sample(w, l, reference)) != "")
			line = line sprintf(", %s against %s (%s)", fmt_pct(st_mean(ref), bm, 1), short(reference), verdict(ref, sample(w, l, best)))
		# Stock as well, unless it was the reference above (no Base).
		if (reference != "stock" && best != "stock" && second != "stock" &&
		    (ref = sample(w, l, "stock")) != "")
			line = line sprintf(", %s against stock (%s)", fmt_pct(st_mean(ref), bm, 1), verdict(ref, sample(w, l, best)))
		printf "%s; order: %s.\n", line, ordering(w, l)
	}
	printf "\n"
}

# The kernel with the highest mean at (w, l) after best.
function runner_up(w, l, best,    j, k, m, r, smp) {
	r = ""
	m = -1
	for (j = 1; j <= nkernels; j++) {
		k = kernels[j]
		smp = sample(w, l, k)
		if (k != best && smp != "" && st_mean(smp) > m) {
			m = st_mean(smp)
			r = k
		}
	}
	return r
}

# The kernels by mean at (w, l), best first: "C > A > Base".
function ordering(w, l,    j, n, k, m, out, x, y, t, done) {
	n = 0
	for (j = 1; j <= nkernels; j++) {
		k = kernels[j]
		if (sample(w, l, k) == "")
			continue
		x[++n] = k
		y[n] = st_mean(sample(w, l, k))
	}
	for (j = 2; j <= n; j++)
		for (m = j; m > 1 && y[m] > y[m - 1]; m--) {
			t = y[m]; y[m] = y[m - 1]; y[m - 1] = t
			t = x[m]; x[m] = x[m - 1]; x[m - 1] = t
		}
	out = ""
	for (j = 1; j <= n; j++)
		out = out (j > 1 ? " > " : "") short(x[j])
	return out
}

function short(k,    b) {
	if (k in label)
		return substr(label[k], 1, index(label[k] " ", " ") - 1)
	b = substr(k, 1, index(k, "@") - 1)
	return b in label ? short(b) substr(k, length(b) + 1) : k
}

function rates(    i, j, l, k, w, r, n, any, m, nratek, ratek, heads) {
	printf "### Lock activity: lock events per second per guest\n\n"
	any = 0
	for (k in hasrates)
		any = 1
	if (!any) {
		printf "No kernel of this run counts lock events (CONFIG_PVQ_LOCK_STATS).\n\n"
		return
	}
	printf "From the kernels with CONFIG_PVQ_LOCK_STATS (%s is the counters run: the lock of A plus the counters), mean over guests and runs. Slow paths = acquisitions that found the lock taken (queued or pending; the share of kernel lock traffic that contends); halts and kicks = the PV wait and wake-up.\n\n", counters_kernel == "" ? "none" : counters_kernel
	nratek = 0
	for (j = 1; j <= nkernels; j++)
		if (kernels[j] in hasrates)
			ratek[++nratek] = kernels[j]
	if (counters_kernel in hasrates && !(counters_kernel in iskernel))
		ratek[++nratek] = counters_kernel
	for (r = 1; r <= nrates; r++)
		heads[r] = ratetitle[rate_id[r]]
	md_head("workload | overcommit | kernel", 3, heads, nrates)
	for (i = 1; i <= nworkloads; i++) {
		w = workload_list[i]
		for (j = 1; j <= nlevels; j++) {
			l = level[j]
			for (m = 1; m <= nratek; m++) {
				k = ratek[m]
				n = rcount[w, l, k]
				if (!n)
					continue
				printf "| %s | %s | %s |", w, level_label(l), k
				for (r = 1; r <= nrates; r++)
					printf " %s |", fmt_si(rsum[w, l, k, rate_id[r]] / n)
				printf "\n"
			}
		}
	}
	printf "\n"
}

function failures(    i) {
	printf "### Failed runs\n\n"
	if (nfailed == 0) {
		printf "None: every guest of every run produced a result.\n\n"
		return
	}
	printf "%d guest result(s) failed; a run with a failed guest is left out of its cell and counted there.\n\n", nfailed
	printf "| workload | level | kernel | run | guest | reason |\n"
	printf "|---|---|---|---|---|---|\n"
	for (i = 1; i <= nfailed; i++)
		print failrow[i]
	printf "\n"
}

function plot(    j, i, k, l, smp) {
	for (j = 1; j <= nkernels; j++) {
		k = kernels[j]
		printf "# %s\n", short(k)
		for (i = 1; i <= nlevels; i++) {
			l = level[i]
			smp = sample(workload, l, k)
			if (smp != "")
				printf "%s %.6g %.6g\n", l, st_mean(smp), st_sd(smp)
		}
		printf "\n\n"
	}
}

# mode=json (report.json): per workload, level and kernel, the cell of the
# tables as numbers: runs, failed, mean, stdev, and against the reference
# kernel the change in percent (positive = better) and the verdict.
function json_report(    i, j, r, w, l, k, smp, ref, n, sep) {
	printf "{\n  \"reference\": %s,\n  \"statistics\": %s,\n  \"confidence\": %s,\n  \"cells\": [",
	       json_str(reference), json_str(ST_METHOD), json_num(ST_CONF)
	sep = ""
	for (i = 1; i <= nworkloads; i++) {
		w = workload_list[i]
		for (r = 1; r <= nlevels; r++) {
			l = level[r]
			ref = sample(w, l, reference)
			for (j = 1; j <= nkernels; j++) {
				k = kernels[j]
				if (!nruns(w, l, k))
					continue
				smp = sample(w, l, k)
				n = st_n(smp)
				printf "%s\n    {\"workload\": %s, \"unit\": %s, \"level\": %s, \"kernel\": %s, ", sep,
				       json_str(w), json_str(unit[w]), json_num(l), json_str(k)
				sep = ","
				printf "\"runs\": %d, \"failed\": %d, \"mean\": %s, \"stdev\": %s",
				       n, nruns(w, l, k) - n, (n ? json_num(st_mean(smp)) : "null"),
				       (n >= 2 ? json_num(st_sd(smp)) : "null")
				if (k == reference || ref == "" || n == 0 || st_mean(ref) == 0)
					printf ", \"change_pct\": null, \"verdict\": null}"
				else
					printf ", \"change_pct\": %s, \"verdict\": %s}",
					       json_num((st_mean(smp) / st_mean(ref) - 1) * 100),
					       json_str(verdict(ref, smp))
			}
		}
	}
	printf "\n  ]\n}\n"
}

END {
	if (NR < 2)
		exit 1
	kernel_order()
	if (reference_default && !("base" in iskernel) && ("stock" in iskernel))
		reference = "stock"
	if (mode == "workloads") {
		for (i = 1; i <= nworkloads; i++)
			print workload_list[i]
		exit 0
	}
	if (mode == "plot") {
		plot()
		exit 0
	}
	if (mode == "json") {
		json_report()
		exit 0
	}
	verdicts()
	for (i = 1; i <= nworkloads; i++) {
		w = workload_list[i]
		printf "### %s (%s)\n\n", w, unit[w]
		if (reference in iskernel)
			change_table(w)
		absolute_table(w)
		printf "![%s against overcommit](%s.png)\n\n", w, w
	}
	rates()
	failures()
	printf "### Start skew\n\n"
	printf "The latest any guest started a workload after its slot began: %d s%s.\n\n", maxlate,
		(maxlate > 2 ? " (the guests of a group did not all run that workload at the same time for the whole slot)" : "")
}
