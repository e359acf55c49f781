# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's run records (one line per run, tab-separated name=value
# pairs, from console.awk) -> CSV or JSON.  The file is read twice: the
# first pass collects the column names, in order of first appearance, so
# that runs with different lock events still share one header.
#
#   awk -v format=csv|json -f records.awk runs.txt runs.txt
#
# A field a run lacks (a failed run has no numbers) is empty in the CSV and
# null in the JSON.  Values never contain commas (console.awk replaced them).

BEGIN {
	FS = "\t"
	ncols = 0
}

NR == FNR {
	for (i = 1; i <= NF; i++) {
		name = substr($i, 1, index($i, "=") - 1)
		if (name != "" && !(name in seen)) {
			seen[name] = 1
			cols[++ncols] = name
		}
	}
	next
}

FNR == 1 && format == "csv" {
	for (c = 1; c <= ncols; c++)
		printf "%s%s", cols[c], (c < ncols ? "," : "\n")
}

FNR == 1 && format == "json" {
	print "["
}

function json_value(v) {
	if (v == "")
		return "null"
	if (v ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/)
		return v
	gsub(/\\/, "\\\\", v)
	gsub(/"/, "\\\"", v)
	return "\"" v "\""
}

{
	split("", val)
	for (i = 1; i <= NF; i++) {
		p = index($i, "=")
		if (p > 1)
			val[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
	if (format == "csv") {
		for (c = 1; c <= ncols; c++)
			printf "%s%s", val[cols[c]], (c < ncols ? "," : "\n")
		next
	}
	printf "%s  {", (FNR > 1 ? ",\n" : "")
	for (c = 1; c <= ncols; c++)
		printf "%s\"%s\": %s", (c > 1 ? ", " : ""), cols[c], json_value(val[cols[c]])
	printf "}"
}

END {
	if (format == "json")
		printf "%s]\n", (FNR ? "\n" : "[")
}
