# SPDX-License-Identifier: GPL-2.0
#
# Statistics for the benchmark report and the compare tool: mean, standard
# deviation and the two-sample t-test, implemented once, here.  POSIX awk
# (runs under mawk and gawk); loaded with -f before the program using it.
#
# A sample is a string of space-separated numbers ("1.5 2 3.25").
#
#   st_n(s), st_mean(s), st_sd(s)   size, mean, sample standard deviation
#                                   (n - 1 in the denominator)
#   st_test(a, b)                   compares two samples; returns 1 when the
#                                   means differ at ST_CONF confidence, 0
#                                   when not, -1 when it cannot tell (a
#                                   sample of fewer than 2).  Sets ST_T (t),
#                                   ST_DF (degrees of freedom), ST_DIFF
#                                   (mean b - mean a) and ST_HALF (half-width
#                                   of the confidence interval of ST_DIFF).
#   st_tcdf(t, df), st_tquantile(p, df)   Student's t distribution
#
# ST_METHOD selects the test: "welch" (default: Welch's unequal-variance
# t-test, Welch-Satterthwaite degrees of freedom) or "student" (Student's t
# with pooled variance, what ministat does).  ST_CONF defaults to 0.95.
# The difference is significant when the confidence interval of ST_DIFF
# excludes 0, i.e. |t| > t(1 - (1 - ST_CONF) / 2, df): ministat's rule.

function st_n(s,    v) {
	return split(s, v, " ")
}

function st_mean(s,    v, n, i, sum) {
	n = split(s, v, " ")
	if (n == 0)
		return 0
	sum = 0
	for (i = 1; i <= n; i++)
		sum += v[i]
	return sum / n
}

function st_sd(s,    v, n, i, m, ss) {
	n = split(s, v, " ")
	if (n < 2)
		return 0
	m = st_mean(s)
	ss = 0
	for (i = 1; i <= n; i++)
		ss += (v[i] - m) * (v[i] - m)
	return sqrt(ss / (n - 1))
}

# log(Gamma(x)), Lanczos approximation (g = 7, 9 terms), |error| < 1e-13.
function st_lgamma(x,    pi, s, t) {
	pi = 3.14159265358979324
	if (x < 0.5)
		return log(pi / sin(pi * x)) - st_lgamma(1 - x)
	x -= 1
	s = 0.99999999999980993 + 676.5203681218851 / (x + 1) \
	    - 1259.1392167224028 / (x + 2) + 771.32342877765313 / (x + 3) \
	    - 176.61502916214059 / (x + 4) + 12.507343278686905 / (x + 5) \
	    - 0.13857109526572012 / (x + 6) \
	    + 9.9843695780195716e-6 / (x + 7) \
	    + 1.5056327351493116e-7 / (x + 8)
	t = x + 7.5
	return 0.5 * log(2 * pi) + (x + 0.5) * log(t) - t + log(s)
}

# Continued fraction of the incomplete beta function (modified Lentz).
function st_betacf(a, b, x,    tiny, qab, qap, qam, c, d, h, m, m2, aa, del) {
	tiny = 1e-300
	qab = a + b
	qap = a + 1
	qam = a - 1
	c = 1
	d = 1 - qab * x / qap
	if (d < tiny && d > -tiny)
		d = tiny
	d = 1 / d
	h = d
	for (m = 1; m <= 300; m++) {
		m2 = 2 * m
		aa = m * (b - m) * x / ((qam + m2) * (a + m2))
		d = 1 + aa * d
		if (d < tiny && d > -tiny)
			d = tiny
		c = 1 + aa / c
		if (c < tiny && c > -tiny)
			c = tiny
		d = 1 / d
		h *= d * c
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
		d = 1 + aa * d
		if (d < tiny && d > -tiny)
			d = tiny
		c = 1 + aa / c
		if (c < tiny && c > -tiny)
			c = tiny
		d = 1 / d
		del = d * c
		h *= del
		if (del > 1 - 3e-16 && del < 1 + 3e-16)
			break
	}
	return h
}

# Regularized incomplete beta function I_x(a, b).
function st_ibeta(a, b, x,    bt) {
	if (x <= 0)
		return 0
	if (x >= 1)
		return 1
	bt = exp(st_lgamma(a + b) - st_lgamma(a) - st_lgamma(b) + \
		 a * log(x) + b * log(1 - x))
	# The continued fraction converges fast on this side of the mean.
	if (x < (a + 1) / (a + b + 2))
		return bt * st_betacf(a, b, x) / a
	return 1 - bt * st_betacf(b, a, 1 - x) / b
}

# P(T <= t) for Student's t with df (> 0, not necessarily whole) degrees.
function st_tcdf(t, df,    tail) {
	tail = 0.5 * st_ibeta(df / 2, 0.5, df / (df + t * t))
	return t > 0 ? 1 - tail : tail
}

# The t with P(T <= t) = p, for 0.5 <= p < 1, by bisection.
function st_tquantile(p, df,    lo, hi, mid, i) {
	lo = 0
	hi = 1
	while (st_tcdf(hi, df) < p && hi < 1e12)
		hi *= 2
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		mid = (lo + hi) / 2
		if (st_tcdf(mid, df) < p)
			lo = mid
		else
			hi = mid
	}
	return (lo + hi) / 2
}

function st_test(a, b,    n1, n2, m1, m2, v1, v2, se, q1, q2) {
	if (ST_METHOD == "")
		ST_METHOD = "welch"
	if (ST_CONF == "")
		ST_CONF = 0.95
	n1 = st_n(a)
	n2 = st_n(b)
	m1 = st_mean(a)
	m2 = st_mean(b)
	ST_DIFF = m2 - m1
	ST_T = ST_DF = ST_HALF = ""
	if (n1 < 2 || n2 < 2)
		return -1
	v1 = st_sd(a) ^ 2
	v2 = st_sd(b) ^ 2
	if (ST_METHOD == "student") {
		ST_DF = n1 + n2 - 2
		se = sqrt(((n1 - 1) * v1 + (n2 - 1) * v2) / ST_DF * \
			  (1 / n1 + 1 / n2))
	} else {
		q1 = v1 / n1
		q2 = v2 / n2
		se = sqrt(q1 + q2)
		# Welch-Satterthwaite; with one variance 0 it is the other
		# sample's n - 1 (a one-sample test against a constant).
		if (se > 0)
			ST_DF = (q1 + q2) ^ 2 / (q1 ^ 2 / (n1 - 1) + q2 ^ 2 / (n2 - 1))
	}
	# Two constant samples: they differ, or they do not, for certain.
	if (se == 0) {
		ST_HALF = 0
		return ST_DIFF != 0
	}
	ST_T = ST_DIFF / se
	ST_HALF = st_tquantile(1 - (1 - ST_CONF) / 2, ST_DF) * se
	return (ST_DIFF > ST_HALF || -ST_DIFF > ST_HALF)
}
