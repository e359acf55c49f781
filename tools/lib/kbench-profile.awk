# SPDX-License-Identifier: GPL-2.0
#
# The profile section of make kbench's report, from the profile runs'
# files DIR/profiles/KERNEL-LEVELx-gGUEST.txt (tools/kbench --profile):
# each line "WORKLOAD PERCENT% COMM [k|.] SYMBOL", perf report's symbols
# over 1% of one guest's samples during that workload.
#
#   awk -f kbench-profile.awk DIR/profiles/*.txt
#
# Per workload, one row per kernel and level (the mean over its guests):
# the share of the samples in the spinlock code (lock, unlock, slow paths,
# PV wait and kick: whatever its name says), in a halt inside a task (a
# PV waiter's, or a task's idle-less wait: not the idle loop), in the idle
# loop, and the five busiest other symbols.

# The kernel's spinlock code, ours and upstream's, by symbol name.
function is_lock(sym) {
	return sym ~ /spin_lock|spin_unlock|spin_trylock|queued_spin|pvq_|virt_spin|_raw_spin|__pv_queued|pv_wait|pv_kick|kvm_kick|kvm_wait|lock_slowpath/
}

function is_halt(sym) {
	return sym ~ /safe_halt|native_halt|default_idle|pvq_nmi_halt|acpi_idle/
}

FNR == 1 {
	# KERNEL-LEVELx-gGUEST.txt
	name = FILENAME
	sub(/.*\//, "", name)
	sub(/\.txt$/, "", name)
	g = name
	sub(/.*-g/, "", g)
	sub(/-g[0-9]+$/, "", name)
	lv = name
	sub(/.*-/, "", lv)
	k = name
	sub(/-[0-9.]+x$/, "", k)
	key = k SUBSEP lv
	if (!(key in seenkey)) {
		seenkey[key] = 1
		keys[++nkeys] = key
	}
	guests[key]++
}

{
	sub(/\r$/, "")
	w = $1
	pct = $2
	sub(/%$/, "", pct)
	comm = $3
	sym = $NF
	if (!(w in seenw)) {
		seenw[w] = 1
		ws[++nw] = w
	}
	wk = w SUBSEP key
	haveprof[wk] = 1
	# A halt first: a PV waiter's halt is a halt, whatever its name.
	if (is_halt(sym)) {
		if (comm == "swapper")
			idle[wk] += pct
		else
			halt[wk] += pct
	} else if (is_lock(sym)) {
		lock[wk] += pct
	} else {
		other[wk, sym] += pct
	}
}

END {
	if (!nw)
		exit
	print "### Profile: where the guests' CPU time went"
	print ""
	print "From the profile runs (`--profile`: perf record on every guest CPU, cpu-clock at 250 Hz, during each workload; one run per kernel and level, not part of the measurements), mean over the guests of the share of samples: in the spinlock code (any kernel symbol named for it: lock, unlock, slow paths, PV wait and kick), halted in a task (a PV waiter's halt, not the idle loop), in the idle loop, and the busiest other symbols. Symbols under 1% of a guest's samples are not counted."
	print ""
	for (i = 1; i <= nw; i++) {
		w = ws[i]
		printf "%s:\n\n", w
		print "| kernel | level | spinlock code | halted in a task | idle | busiest other symbols |"
		print "|---|---|---:|---:|---:|---|"
		for (j = 1; j <= nkeys; j++) {
			key = keys[j]
			wk = w SUBSEP key
			if (!(wk in haveprof))
				continue
			split(key, kl, SUBSEP)
			n = guests[key]
			top = topsyms(w, key, n)
			printf "| %s | %s | %.1f%% | %.1f%% | %.1f%% | %s |\n", kl[1], kl[2],
			       lock[wk] / n, halt[wk] / n, idle[wk] / n, top
		}
		print ""
	}
}

# The five largest "other" symbols of (w, key), "sym 12.3%", by share.
function topsyms(w, key, n,    s, parts, sym, best, bsym, out, c, taken) {
	out = ""
	for (c = 1; c <= 5; c++) {
		best = -1
		for (s in other) {
			split(s, parts, SUBSEP)
			if (parts[1] != w || parts[2] SUBSEP parts[3] != key || (s in taken))
				continue
			if (other[s] > best) {
				best = other[s]
				bsym = s
			}
		}
		if (best < 0)
			break
		taken[bsym] = 1
		split(bsym, parts, SUBSEP)
		out = out (c > 1 ? ", " : "") "`" parts[4] "` " sprintf("%.1f%%", best / n)
	}
	return out
}
