# SPDX-License-Identifier: GPL-2.0
#
# Number formats and verdicts shared by the benchmark reports
# (report.awk for make bench, kbench-report.awk for make kbench).  Needs
# stats.awk loaded first.
#
#   fmt_si(x)                 three significant figures, SI suffix
#   fmt_pct(ref, x, higher)   signed %-change of x against ref, positive =
#                             better (higher: 1 when higher is better); a
#                             ratio ("12.0x better") past +-1000%
#   verdict(a, b)             "*" when samples a and b differ significantly,
#                             "neutral" when not, "n/a" when it cannot tell
#   add_level(l)              l into level[1..nlevels] (numeric order,
#                             once; islevel[l] set)
#   md_head(lead, nlead, heads, n)   a Markdown table's header: nlead
#                             left-aligned columns (lead, "a | b"), then
#                             heads[1..n] right-aligned

# Three significant figures and an SI suffix: 1.23M, 45.6k, 789, 0.0123.
function fmt_si(x,    a, s) {
	a = x < 0 ? -x : x
	s = ""
	if (a >= 1e9) {
		x /= 1e9
		s = "G"
	} else if (a >= 1e6) {
		x /= 1e6
		s = "M"
	} else if (a >= 1e3) {
		x /= 1e3
		s = "k"
	}
	a = x < 0 ? -x : x
	if (a == 0)
		return "0"
	if (a >= 99.95)
		return sprintf("%.0f%s", x, s)
	if (a >= 9.995)
		return sprintf("%.1f%s", x, s)
	if (a >= 0.9995 || s != "")
		return sprintf("%.2f%s", x, s)
	return sprintf("%.3g", x)
}

# Signed so that positive is better.  A change of 1000% or more either way
# (one side 11 times the other) reads better as a ratio: "41.7kx worse".
function fmt_pct(ref, x, higher,    p, r) {
	if (ref == 0)
		return ""
	p = (higher ? x - ref : ref - x) / ref * 100
	if ((p >= 1000 || p <= -1000) && x != 0) {
		r = higher ? x / ref : ref / x
		return r >= 1 ? fmt_si(r) "x better" : fmt_si(1 / r) "x worse"
	}
	return sprintf("%+.1f%%", p)
}

function verdict(a, b,    v) {
	v = st_test(a, b)
	return v < 0 ? "n/a" : v ? "*" : "neutral"
}

function add_level(l,    i) {
	if (l in islevel)
		return
	islevel[l] = 1
	# Insertion sort: levels stay in numeric order.
	for (i = ++nlevels; i > 1 && level[i - 1] + 0 > l + 0; i--)
		level[i] = level[i - 1]
	level[i] = l
}

function md_head(lead, nlead, heads, n,    j) {
	printf "| %s |", lead
	for (j = 1; j <= n; j++)
		printf " %s |", heads[j]
	printf "\n|"
	for (j = 1; j <= nlead; j++)
		printf "---|"
	for (j = 1; j <= n; j++)
		printf "---:|"
	printf "\n"
}

# JSON values (report.json, tools/compare --json).
function json_str(x) {
	gsub(/\\/, "\\\\", x)
	gsub(/"/, "\\\"", x)
	return "\"" x "\""
}

function json_num(x) {
	return sprintf("%.6g", x)
}
