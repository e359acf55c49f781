#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh -- model-check model/pvqspinlock.pml and model/pvticket.pml
# with SPIN, print TAP.
#
# pvqspinlock.pml: for the model of the C code (fair, fair with
# fair_bound_us and unfair, 3 CPUs x 2 acquisitions, plus 4 CPUs x 1 and a
# spurious-wakeup backend) it runs the safety search (assertions: mutual
# exclusion, the C code's WARNs, one hash entry per lock, no steal past
# the pending bit, a robbed head can halt again, a queue head passed at
# most pass_bound times; invalid end states: nobody halted or stuck
# forever) and the liveness search (LTL "live", acceptance cycles under
# weak fairness) and requires "errors: 0" from a complete search.  The
# pass bound is also checked against a greedy stealer that never queues
# (safety, LTL "head": every queue head takes the lock, and "live"), for
# heads that halt and heads that cannot.  For every planted bug (among
# them the C code before each fix of README.md "Findings", and before the
# pass bound) it requires a counterexample of each property the bug
# breaks.
#
# pvticket.pml (2 CPUs, each a task and a nested NMI or softirq, 2 locks,
# ipi and strict backends): the same two searches for the C code in each
# configuration; a counterexample for each planted bug (the three holes of
# the PV hardening: BUG_NMI_RECORD, BUG_STRICT_FLAG, BUG_NMI_KICK_DROPPED;
# BUG_NO_RECORD_RESTORE; and the C code before the fixes of findings 4
# and 5 of README.md, "The PV ticket lock with nested contexts":
# BUG_NO_SELF_KICK, BUG_NO_FLUSH_DEFERRED).
#
# Usage: model/check.sh [-v] [-k] [REGEX]
#   -v     print the counterexample of each expected failure (the steps
#          that touch shared state) as TAP comments
#   -k     keep the work directory (pan, pan.*, *.trail, logs), say where
#   REGEX  run only the tests whose description matches (grep -E)
#
# Environment: JOBS (pan runs in parallel, default 2), MEMLIM (MB per pan
# run, default 8192), SPIN, CC.
# Needs spin (apt-get install -y spin) and a C compiler.  Everything spin
# and pan write goes to a temporary directory, never into the repository.
# Exit status: 0 if every test passed, 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SPIN=${SPIN:-spin}
CC=${CC:-gcc}
JOBS=${JOBS:-2}			# pan runs at a time: one per core
MEMLIM=${MEMLIM:-8192}		# MB per pan: JOBS x 8 GiB < 24 GiB
DEPTH=20000			# pan -m: far above the deepest run (~1200)

verbose=0
keep=0
usage() {
	echo "usage: $0 [-v] [-k] [REGEX]"
	echo "  check the SPIN models (the checks whose name matches REGEX); -v: pan's"
	echo "  output, -k: keep the work directory; prints TAP"
}
case ${1-} in
-h | --help) usage; exit 0 ;;
esac
while getopts vk opt; do
	case $opt in
	v) verbose=1 ;;
	k) keep=1 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
select=${1:-}

for tool in "$SPIN" "$CC"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "Bail out! $tool not found (apt-get install -y spin gcc)"
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pvqspinlock-model.XXXXXX")
cleanup() {
	if ((keep)); then
		echo "# work directory kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

t_start=$SECONDS

# Replay the trail of MODEL in the current directory: one line per step of
# a CPU that touches shared state (locals-only steps are left out).
show_trail() {
	local model=$1
	shift
	if [[ $model == pvticket.pml ]]; then
		show_trail_pvticket "$model" "$@"
		return
	fi
	"$SPIN" "$@" -t -p "$model" 2>/dev/null |
	awk '/proc +[1-9][0-9]* \(cpu/ {
		p = $3 - 1; ln = $5; sub(/.*:/, "", ln)
		s = $0; sub(/^[^[]*\[/, "[", s)
		if (s ~ /lk_|nd_|he_|waiting|kicked|in_cs|assert/)
			printf "#     cpu%d  line %-4s %s\n", p, ln, s
	}
	/proc +[1-9][0-9]* \(cpu/ && !/\[/ {
		ln = $5; sub(/.*:/, "", ln)
		printf "#     cpu%d  ends at line %s\n", $3 - 1, ln
	}
	/START OF CYCLE/ { print "#     " $0 }' | uniq | head -200 ||
		true	# head closing the pipe early is no error (pipefail)
}

# The same for pvticket.pml: pid 3c + 1, 3c + 2, 3c + 3 are the task, the
# nested context and the APIC of CPU c.
show_trail_pvticket() {
	local model=$1
	shift
	"$SPIN" "$@" -t -p "$model" 2>/dev/null |
	awk '/proc +[1-9][0-9]* \((task|nested|apic)/ {
		c = int(($3 - 1) / 3); who = $4
		sub(/^\(/, "", who); sub(/:.*/, "", who)
		ln = $5; sub(/.*:/, "", ln)
		s = $0; sub(/^[^[]*\[/, "[", s)
		if (s ~ /head|tail|w_lock|w_want|waiting|ipi|halted|kick|pending|work|in_cs|irqs_off|in_nmi|nest\[|assert/)
			printf "#     cpu%d %-6s line %-4s %s\n", c, who, ln, s
	}
	/proc +[1-9][0-9]* \((task|nested)/ && !/\[/ && !/valid end state/ {
		c = int(($3 - 1) / 3); who = $4
		sub(/^\(/, "", who); sub(/:.*/, "", who)
		ln = $5; sub(/.*:/, "", ln)
		printf "#     cpu%d %-6s stuck at line %s\n", c, who, ln
	}
	/START OF CYCLE/ { print "#     " $0 }' | uniq | head -200 ||
		true	# head closing the pipe early is no error (pipefail)
}

# run_test NUM EXPECT MODE "SPIN FLAGS" "DESCRIPTION" OPT MODEL
#
# Runs one test in $work/tNUM and prints its TAP line (and diagnostics).
#
# EXPECT  pass: a complete search with errors: 0;
#         fail:REGEX: errors > 0 and pan's report matches REGEX.
# MODE    safety:   assertions and invalid end states;
#         assert:   assertions only (pan -E);
#         deadlock: invalid end states only (pan -A);
#         live:     LTL "live" under weak fairness (pan -a -f);
#         live-A:   the same, assertions ignored (pan -A), for bugs, so
#                   that the counterexample is the liveness one;
#         head, head-A: the same for LTL "head" of pvqspinlock.pml (every
#                   queue head takes the lock);
#         all:      assertions only, every error reported (pan -E -c0),
#                   so that REGEX can pick one kind among many.
# OPT     O2: a big search: pan compiled with gcc -O2, default hash table;
#         O1: a medium one: gcc -O1 (compiles twice as fast, runs about as
#             fast), default hash table;
#         O0: a small one: gcc -O0 (compiles faster), pan -w20.
# MODEL   pvqspinlock.pml or pvticket.pml.
run_test() {
	local n=$1 expect=$2 mode=$3 sflags=$4 desc=$5 opt=$6 model=$7
	local dir ccflags panflags log errors states depth secs
	local -a sf

	dir=$work/t$n
	mkdir -p "$dir"
	cp "$here/$model" "$dir/"
	read -r -a sf <<<"$sflags"

	case $mode in
	safety) ccflags="-DSAFETY -DNOCLAIM"; panflags="" ;;
	assert) ccflags="-DSAFETY -DNOCLAIM"; panflags="-E" ;;
	all) ccflags="-DSAFETY -DNOCLAIM"; panflags="-E -c0" ;;
	deadlock) ccflags="-DSAFETY -DNOCLAIM"; panflags="-A" ;;
	live) ccflags=""; panflags="-a -f -N live" ;;
	live-A) ccflags=""; panflags="-a -f -A -N live" ;;
	head) ccflags=""; panflags="-a -f -N head" ;;
	head-A) ccflags=""; panflags="-a -f -A -N head" ;;
	*) echo "Bail out! bad mode $mode"; exit 1 ;;
	esac
	# pvticket.pml has 7 processes: weak fairness needs NFAIR=3.
	if [[ $model == pvticket.pml && $mode == live* ]]; then
		ccflags="-DNFAIR=3"
	fi

	log=$dir/pan.log
	if ! (cd "$dir" && "$SPIN" "${sf[@]}" -a "$model" >spin.log 2>&1); then
		echo "not ok $n - $desc"
		sed 's/^/#   /' "$dir/spin.log"
		return
	fi
	# shellcheck disable=SC2086
	if ! (cd "$dir" && "$CC" -w -"$opt" -DMEMLIM="$MEMLIM" $ccflags \
			-o pan pan.c >cc.log 2>&1); then
		echo "not ok $n - $desc"
		sed 's/^/#   /' "$dir/cc.log" | tail -20
		return
	fi
	if [[ $opt == O0 ]]; then
		panflags="$panflags -w20"
	fi
	# Verbose: look for the shortest counterexample (pan -i).
	if ((verbose)) && [[ $expect == fail:* ]] &&
	   [[ $mode != live* && $mode != head* && $mode != all ]]; then
		panflags="$panflags -i"
	fi
	# shellcheck disable=SC2086
	(cd "$dir" && ./pan -m"$DEPTH" $panflags >"$log" 2>&1) || true

	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$log" | tail -1)
	states=$(awk '/states, stored/ { print $1; exit }' "$log")
	depth=$(sed -n 's/.*depth reached \([0-9]*\),.*/\1/p' "$log" | tail -1)
	secs=$(sed -n 's/^pan: elapsed time \([0-9.e+-]*\) seconds.*/\1/p' "$log" | tail -1)
	local info="states ${states:-?}, depth ${depth:-?}, ${secs:-0} s"
	local ok=0

	case $expect in
	pass)
		if [[ "$errors" == 0 ]] &&
		   ! grep -q "max search depth too small" "$log" &&
		   ! grep -q "reached -DMEMLIM bound" "$log" &&
		   ! grep -qi "out of memory" "$log"; then
			ok=1
		fi
		;;
	fail:*)
		if [[ -n "$errors" && "$errors" != 0 ]] &&
		   grep -Eq -- "${expect#fail:}" "$log"; then
			ok=1
			info="$(grep -Em1 -- "${expect#fail:}" "$log" |
				sed 's/^pan:[0-9]*: //; s/ (at depth.*//'); $info"
		fi
		;;
	esac

	if ((ok)); then
		echo "ok $n - $desc # $info"
		if ((verbose)) && [[ $expect == fail:* ]] && [[ $mode != all ]]; then
			(cd "$dir" && show_trail "$model" "${sf[@]}")
		fi
	else
		echo "not ok $n - $desc # errors ${errors:-?}, $info"
		grep -E "^pan|error|errors:|depth" "$log" | head -20 | sed 's/^/#   /'
	fi
}

# The tests, in TAP order: add EXPECT MODE "SPIN FLAGS" "DESCRIPTION" [OPT]
# (of the model $add_model).
tests=()
SEP=$'\x1f'
add_model=pvqspinlock.pml
add() {
	if [[ -z $select ]] || grep -Eq -- "$select" <<<"$4"; then
		tests+=("$1$SEP$2$SEP$3$SEP$4$SEP${5:-O0}$SEP$add_model")
	fi
}

# Counterexample patterns.
DEAD='invalid end state'
LIVE='acceptance cycle'
MUTEX='assertion violated \(in_cs==1\)'
HASH2='assertion violated \(\(he_lock\[0\]\+he_lock\[1\]\)==1\)'
PEND='assertion violated.*lk_pending'
ROBBED='assertion violated.*pred_hashed'

# --- The C protocol: every property must hold. ------------------------
# (The two longest searches first: they run while the rest is done.)
add pass live "-DUNFAIR" \
	"unfair, 3 CPUs x 2: liveness <>(all CPUs done), weak fairness" O2
add pass live "" \
	"fair, 3 CPUs x 2: liveness <>(all CPUs done), weak fairness" O2
add pass safety "" \
	"fair, 3 CPUs x 2: safety (mutual exclusion, WARNs, one hash entry, no steal past pending, robbed head can halt, head passed at most pass_bound times; no invalid end state)" O2
add pass safety "-DUNFAIR" \
	"unfair, 3 CPUs x 2: safety (mutual exclusion, WARNs, one hash entry, no steal past pending, robbed head can halt, head passed at most pass_bound times; no invalid end state)" O2
add pass safety "-DFAIR_BOUND" \
	"fair with fair_bound_us, 3 CPUs x 2: safety" O2
add pass live "-DFAIR_BOUND" \
	"fair with fair_bound_us, 3 CPUs x 2: liveness <>(all CPUs done), weak fairness" O2
add pass safety "-DNCPU=4 -DITERS=1" \
	"fair, 4 CPUs x 1: safety" O2
add pass safety "-DNCPU=4 -DITERS=1 -DUNFAIR" \
	"unfair, 4 CPUs x 1: safety" O2
add pass safety "-DSPURIOUS" \
	"fair, 3 CPUs x 2, spurious wake-ups: safety" O2
add pass safety "-DSPURIOUS -DUNFAIR" \
	"unfair, 3 CPUs x 2, spurious wake-ups: safety" O2

# --- Planted bugs: each must fail every property it breaks. -------------
add "fail:$DEAD" deadlock "-DBUG_KICK_BEFORE_RELEASE" \
	"BUG_KICK_BEFORE_RELEASE (fair): head halted forever (invalid end state)"
add "fail:$LIVE" live-A "-DBUG_KICK_BEFORE_RELEASE" \
	"BUG_KICK_BEFORE_RELEASE (fair): liveness violated"
add "fail:$DEAD" deadlock "-DBUG_KICK_BEFORE_RELEASE -DUNFAIR" \
	"BUG_KICK_BEFORE_RELEASE (unfair): head halted forever"
add "fail:$DEAD" deadlock "-DBUG_DEFERRED_KICK_DROPPED" \
	"BUG_DEFERRED_KICK_DROPPED (fair): lost wakeup (invalid end state)"
add "fail:$LIVE" live-A "-DBUG_DEFERRED_KICK_DROPPED" \
	"BUG_DEFERRED_KICK_DROPPED (fair): liveness violated"
add "fail:$DEAD" deadlock "-DBUG_DEFERRED_KICK_DROPPED -DUNFAIR" \
	"BUG_DEFERRED_KICK_DROPPED (unfair): lost wakeup"
add "fail:$DEAD" deadlock "-DBUG_WAIT_NODE_ORDER" \
	"BUG_WAIT_NODE_ORDER (fair): lost wakeup (invalid end state)"
add "fail:$LIVE" live-A "-DBUG_WAIT_NODE_ORDER" \
	"BUG_WAIT_NODE_ORDER (fair): liveness violated"
add "fail:$DEAD" deadlock "-DBUG_WAIT_NODE_ORDER -DUNFAIR" \
	"BUG_WAIT_NODE_ORDER (unfair): lost wakeup"
add "fail:$HASH2" assert "-DBUG_UNLOCK_NO_UNHASH" \
	"BUG_UNLOCK_NO_UNHASH (fair): stale entry, two entries for one lock"
add "fail:$DEAD" deadlock "-DBUG_UNLOCK_NO_UNHASH" \
	"BUG_UNLOCK_NO_UNHASH (fair): stale entry, wrong CPU kicked (invalid end state)"
add "fail:$LIVE" live-A "-DBUG_UNLOCK_NO_UNHASH" \
	"BUG_UNLOCK_NO_UNHASH (fair): liveness violated"
add "fail:$HASH2" assert "-DBUG_UNLOCK_NO_UNHASH -DUNFAIR" \
	"BUG_UNLOCK_NO_UNHASH (unfair): two entries for one lock"
# (pan -c0 goes on after the first error: 3 CPUs x 1 keeps that small.)
add "fail:$MUTEX" all "-DBUG_STEAL_NOT_ATOMIC -DITERS=1" \
	"BUG_STEAL_NOT_ATOMIC (fair, 3 CPUs x 1): mutual exclusion violated"
add "fail:$MUTEX" all "-DBUG_STEAL_NOT_ATOMIC -DITERS=1 -DUNFAIR" \
	"BUG_STEAL_NOT_ATOMIC (unfair, 3 CPUs x 1): mutual exclusion violated"

# --- What the model depends on. ----------------------------------------
# A backend whose wait() also returns when *ptr changes (mwait-like) masks
# BUG_KICK_BEFORE_RELEASE; the real hlt-based backends do not.
add pass deadlock "-DBUG_KICK_BEFORE_RELEASE -DWAIT_MONITOR" \
	"BUG_KICK_BEFORE_RELEASE with a monitor-style wait(): harmless (the kvm/ipi hlt is not one)"
# BUG_WAIT_NODE_ORDER is a lost wakeup even then.
add "fail:$DEAD" deadlock "-DBUG_WAIT_NODE_ORDER -DWAIT_MONITOR" \
	"BUG_WAIT_NODE_ORDER with a monitor-style wait(): still a lost wakeup"

# --- The C code before the fixes of README.md "Findings", and the
# pred_hashed fix with each of its parts broken. -------------------------
add "fail:$ROBBED" assert "-DBUG_PRED_HASHED_SNAPSHOT" \
	"BUG_PRED_HASHED_SNAPSHOT (finding 1, fair): a robbed head can never halt again"
add "fail:$ROBBED" assert "-DBUG_PRED_HASHED_SNAPSHOT -DUNFAIR" \
	"BUG_PRED_HASHED_SNAPSHOT (finding 1, unfair): a robbed head can never halt again"
add "fail:$PEND" assert "-DBUG_STEAL_LOCKED_BYTE" \
	"BUG_STEAL_LOCKED_BYTE (finding 2, fair): a steal in flight passes a freshly set pending bit"
add "fail:$PEND" assert "-DBUG_STEAL_LOCKED_BYTE -DUNFAIR" \
	"BUG_STEAL_LOCKED_BYTE (finding 2, unfair): a steal in flight passes the starving head's pending bit"
add "fail:$HASH2" assert "-DBUG_PRED_HASHED_READ_LATE" \
	"BUG_PRED_HASHED_READ_LATE (finding 3, fair): stale entry, two entries for one lock"
add "fail:$DEAD" deadlock "-DBUG_PRED_HASHED_READ_LATE" \
	"BUG_PRED_HASHED_READ_LATE (finding 3, fair): stale entry, wrong CPU kicked (invalid end state)"
add "fail:$LIVE" live-A "-DBUG_PRED_HASHED_READ_LATE" \
	"BUG_PRED_HASHED_READ_LATE (finding 3, fair): liveness violated"
add "fail:$HASH2" assert "-DBUG_PRED_HASHED_READ_LATE -DUNFAIR" \
	"BUG_PRED_HASHED_READ_LATE (finding 3, unfair): stale entry, two entries for one lock"
add "fail:$HASH2" assert "-DBUG_PRED_HASHED_UNSET" \
	"BUG_PRED_HASHED_UNSET (fair): the head hashes itself over its predecessor's entry"
add "fail:$HASH2" assert "-DBUG_PRED_HASHED_SET_LATE" \
	"BUG_PRED_HASHED_SET_LATE (fair): the flag after the state, two entries for one lock"
add "fail:$ROBBED" assert "-DBUG_PRED_HASHED_KEPT" \
	"BUG_PRED_HASHED_KEPT (fair): the flag outlives the entry, a robbed head cannot halt"

# --- pvticket.pml: 2 CPUs, each a task taking lock A and a nested
# context (NMI, hard interrupt or softirq), 2 locks, backends ipi, nmi and
# strict. ------------------------------------------------------------------
add_model=pvticket.pml
NMI="NMI lock(B)"
TRY="NMI trylock(A)"
HIRQ="hardirq lock(B)"
SIRQ="softirq lock(B)"
OWN="softirq lock(B), own record"
IRQOFF="CPU 0's task with interrupts off"

# The C protocol: every property must hold.
add pass safety "" \
	"pvticket, $NMI, ipi: safety (mutual exclusion; no invalid end state)"
add pass live "" \
	"pvticket, $NMI, ipi: liveness <>(all contexts done), weak fairness" O1
add pass safety "-DSTRICT" \
	"pvticket, $NMI, strict: safety"
add pass live "-DSTRICT" \
	"pvticket, $NMI, strict: liveness" O1
add pass safety "-DITERS=2" \
	"pvticket, $NMI, ipi, 2 acquisitions per task: safety" O1
add pass safety "-DNEST_NMI_TRYLOCK" \
	"pvticket, $TRY, ipi: safety"
add pass live "-DNEST_NMI_TRYLOCK" \
	"pvticket, $TRY, ipi: liveness" O1
add pass safety "-DNEST_NMI_TRYLOCK -DSTRICT" \
	"pvticket, $TRY, strict: safety"
add pass live "-DNEST_NMI_TRYLOCK -DSTRICT" \
	"pvticket, $TRY, strict: liveness" O1
add pass safety "-DNEST_SOFTIRQ" \
	"pvticket, $SIRQ, ipi: safety" O1
add pass live "-DNEST_SOFTIRQ" \
	"pvticket, $SIRQ, ipi: liveness" O1
add pass safety "-DNEST_SOFTIRQ -DSTRICT" \
	"pvticket, $SIRQ, strict: safety (finding 4 fixed: the self-kick)" O1
add pass live "-DNEST_SOFTIRQ -DSTRICT" \
	"pvticket, $SIRQ, strict: liveness (finding 4 fixed: the self-kick)" O1
add pass safety "-DNEST_SOFTIRQ -DNEST_OWN_RECORD -DSTRICT" \
	"pvticket, $OWN (another PV lock), strict: safety" O1
add pass live "-DNEST_SOFTIRQ -DNEST_OWN_RECORD -DSTRICT" \
	"pvticket, $OWN (another PV lock), strict: liveness" O1
add pass live "-DIRQSAVE" \
	"pvticket, $NMI, CPU 0's task with interrupts off, ipi: liveness" O1
add pass live "-DNEST_SOFTIRQ -DIRQSAVE" \
	"pvticket, $SIRQ, CPU 0's task with interrupts off, ipi: liveness" O1
add pass safety "-DNEST_NMI_TRYLOCK -DIRQSAVE" \
	"pvticket, $TRY, CPU 0's task with interrupts off, ipi: safety"
add pass live "-DNEST_NMI_TRYLOCK -DIRQSAVE" \
	"pvticket, $TRY, CPU 0's task with interrupts off, ipi: liveness (finding 5 fixed: spinning() sends the deferred kicks)" O1
add pass live "-DNEST_NMI_TRYLOCK -DIRQSAVE -DSTRICT" \
	"pvticket, $TRY, CPU 0's task with interrupts off, strict: liveness (finding 5 fixed)" O1
# The NMI kick: waiters with interrupts off halt, and an NMI wakes them.
add pass safety "-DNMIKICK" \
	"pvticket, $NMI, nmi: safety"
add pass live "-DNMIKICK" \
	"pvticket, $NMI, nmi: liveness" O1
add pass safety "-DNMIKICK -DIRQSAVE" \
	"pvticket, $NMI, $IRQOFF, nmi: safety (the NMI-woken halt, NMIs at every step)" O1
add pass live "-DNMIKICK -DIRQSAVE" \
	"pvticket, $NMI, $IRQOFF, nmi: liveness" O1
add pass safety "-DNMIKICK -DNEST_NMI_TRYLOCK -DIRQSAVE" \
	"pvticket, $TRY, $IRQOFF, nmi: safety (kicks from NMI context, deferred)" O1
add pass live "-DNMIKICK -DNEST_NMI_TRYLOCK -DIRQSAVE" \
	"pvticket, $TRY, $IRQOFF, nmi: liveness" O1
add pass safety "-DNMIKICK -DNEST_HARDIRQ" \
	"pvticket, $HIRQ, nmi: safety (an NMI-woken wait inside a task's IPI-woken one)" O1
add pass safety "-DNMIKICK -DNEST_SOFTIRQ -DIRQSAVE" \
	"pvticket, $SIRQ, $IRQOFF, nmi: safety" O1
add pass safety "-DSTRICT -DNEST_HARDIRQ" \
	"pvticket, $HIRQ, strict: safety" O1
add pass live "-DSTRICT -DIRQSAVE" \
	"pvticket, $NMI, $IRQOFF, strict: liveness" O1

# Planted bugs: the three holes of the PV hardening, one more, and the C
# code before the fixes of findings 4 and 5 (commit d7d3a7c).  Hole 1 is
# checked without the self-kick (the C code that had it had none): the
# NMI's own self-kick, deferred to its irq_work, would end the task's hlt.
add "fail:$DEAD" deadlock "-DBUG_NMI_RECORD -DBUG_NO_SELF_KICK" \
	"pvticket BUG_NMI_RECORD (hole 1), $NMI, ipi: the NMI hides the task's record, task halted forever (invalid end state)"
add "fail:$LIVE" live-A "-DBUG_NMI_RECORD -DBUG_NO_SELF_KICK" \
	"pvticket BUG_NMI_RECORD (hole 1), $NMI, ipi: liveness violated"
add "fail:$DEAD" deadlock "-DBUG_NMI_RECORD -DBUG_NO_SELF_KICK -DSTRICT" \
	"pvticket BUG_NMI_RECORD (hole 1), $NMI, strict: task halted forever"
add "fail:$DEAD" deadlock "-DBUG_STRICT_FLAG -DSTRICT -DNEST_SOFTIRQ -DNEST_OWN_RECORD" \
	"pvticket BUG_STRICT_FLAG (hole 3), $OWN, strict: the softirq eats the task's kick, task halted forever (invalid end state)"
add "fail:$LIVE" live-A "-DBUG_STRICT_FLAG -DSTRICT -DNEST_SOFTIRQ -DNEST_OWN_RECORD" \
	"pvticket BUG_STRICT_FLAG (hole 3), $OWN, strict: liveness violated"
add "fail:$DEAD" deadlock "-DBUG_NMI_KICK_DROPPED -DNEST_NMI_TRYLOCK" \
	"pvticket BUG_NMI_KICK_DROPPED (hole 2), $TRY, ipi: the NMI's unlock kicks nobody, waiter halted forever (invalid end state)"
add "fail:$LIVE" live-A "-DBUG_NMI_KICK_DROPPED -DNEST_NMI_TRYLOCK" \
	"pvticket BUG_NMI_KICK_DROPPED (hole 2), $TRY, ipi: liveness violated"
add "fail:$DEAD" deadlock "-DBUG_NMI_KICK_DROPPED -DNEST_NMI_TRYLOCK -DSTRICT" \
	"pvticket BUG_NMI_KICK_DROPPED (hole 2), $TRY, strict: waiter halted forever"
add "fail:$DEAD" deadlock "-DBUG_NO_RECORD_RESTORE -DNEST_SOFTIRQ" \
	"pvticket BUG_NO_RECORD_RESTORE, $SIRQ, ipi: the softirq clears the task's record, task halted forever (invalid end state)"
add "fail:$DEAD" deadlock "-DBUG_NO_SELF_KICK -DNEST_SOFTIRQ -DSTRICT" \
	"pvticket BUG_NO_SELF_KICK (finding 4), $SIRQ, strict: a softirq during the task's halt hides its record, task halted forever (invalid end state)"
add "fail:$LIVE" live-A "-DBUG_NO_SELF_KICK -DNEST_SOFTIRQ -DSTRICT" \
	"pvticket BUG_NO_SELF_KICK (finding 4), $SIRQ, strict: liveness violated"
add "fail:$LIVE" live "-DBUG_NO_FLUSH_DEFERRED -DNEST_NMI_TRYLOCK -DIRQSAVE" \
	"pvticket BUG_NO_FLUSH_DEFERRED (finding 5), $TRY, CPU 0's task with interrupts off, ipi: the deferred kick is never sent, liveness violated"
add "fail:$LIVE" live "-DBUG_NO_FLUSH_DEFERRED -DNEST_NMI_TRYLOCK -DIRQSAVE -DSTRICT" \
	"pvticket BUG_NO_FLUSH_DEFERRED (finding 5), $TRY, CPU 0's task with interrupts off, strict: liveness violated"
add "fail:$LIVE" live "-DBUG_NO_FLUSH_DEFERRED -DNEST_NMI_TRYLOCK -DIRQSAVE -DNMIKICK" \
	"pvticket BUG_NO_FLUSH_DEFERRED, $TRY, $IRQOFF, nmi: the NMI-woken halt leaves the deferred kick unsent, liveness violated"
add "fail:$DEAD" deadlock "-DBUG_NMI_WINDOW -DNMIKICK -DIRQSAVE" \
	"pvticket BUG_NMI_WINDOW, $NMI, $IRQOFF, nmi: the kick's NMI between compare and hlt is lost, task halted forever (invalid end state)"
add "fail:$DEAD" deadlock "-DBUG_NMI_WINDOW -DSTRICT -DIRQSAVE" \
	"pvticket BUG_NMI_WINDOW, $NMI, $IRQOFF, strict: task halted forever"
add "fail:$DEAD" deadlock "-DBUG_NMI_WINDOW -DNMIKICK -DNEST_HARDIRQ" \
	"pvticket BUG_NMI_WINDOW, $HIRQ, nmi: the hard interrupt halted forever"

# --- pvqspinlock.pml: the pass bound (README.md "The pass bound").  CPUs
# 0 and 1 take the lock twice each, CPU 2 is a greedy stealer that steals
# for ever and never queues (GREEDY); pass_bound 2, pass_scale 1 unless
# said otherwise.  "cannot halt": CPU 0's pvq_pv_can_wait() is false
# (CPU0_NO_WAIT).  Two liveness claims: "head", every queue head takes the
# lock, whatever the others do (even spin in their steal loops for ever);
# "live", CPUs 0 and 1 complete, which needs the steal loops bounded as
# they are in the C code (SPIN_MAX=2: the steal loop and the head's spin
# give up after at most 2 failed loops), or a contender could spin in its
# steal loop for ever and never be a head to protect. -------------------
add_model=pvqspinlock.pml
G="2 CPUs x 2 + greedy stealer"
PASSES='assertion violated \(g_passed<='
NOQUEUE='assertion violated \(lk_passes==0\)'
SAFE="safety (mutual exclusion, WARNs, one hash entry, no steal past pending, robbed head can halt, head passed at most pass_bound times; no invalid end state)"
HEAD="liveness [](a head waits -> <> it has the lock), weak fairness"
LIVENESS="liveness <>(CPUs 0 and 1 done) with SPIN_MAX=2, weak fairness"

# The C protocol: every property must hold.
add pass safety "-DGREEDY" \
	"greedy: fair, $G: $SAFE" O1
add pass safety "-DGREEDY -DCPU0_NO_WAIT" \
	"greedy: fair, $G, CPU 0 cannot halt: safety" O1
add pass safety "-DGREEDY -DFAIR_BOUND" \
	"greedy: fair with fair_bound_us, $G: safety" O1
add pass safety "-DGREEDY -DFAIR_BOUND -DCPU0_NO_WAIT" \
	"greedy: fair with fair_bound_us, $G, CPU 0 cannot halt: safety" O1
add pass safety "-DGREEDY -DUNFAIR" \
	"greedy: unfair, $G: safety" O1
add pass safety "-DGREEDY -DUNFAIR -DCPU0_NO_WAIT" \
	"greedy: unfair, $G, CPU 0 cannot halt: safety" O1
add pass head "-DGREEDY" \
	"greedy: fair, $G, halting heads: $HEAD" O2
add pass head "-DGREEDY -DCPU0_NO_WAIT" \
	"greedy: fair, $G, CPU 0 cannot halt: liveness, every head" O2
add pass head "-DGREEDY -DFAIR_BOUND" \
	"greedy: fair with fair_bound_us, $G, halting heads: liveness, every head" O2
add pass head "-DGREEDY -DFAIR_BOUND -DCPU0_NO_WAIT" \
	"greedy: fair with fair_bound_us, $G, CPU 0 cannot halt: liveness, every head" O2
add pass head "-DGREEDY -DUNFAIR" \
	"greedy: unfair, $G, halting heads: liveness, every head" O2
add pass head "-DGREEDY -DUNFAIR -DCPU0_NO_WAIT" \
	"greedy: unfair, $G, CPU 0 cannot halt: liveness, every head" O2
add pass live "-DGREEDY -DSPIN_MAX=2" \
	"greedy: fair, $G, halting heads: $LIVENESS" O2
add pass live "-DGREEDY -DSPIN_MAX=2 -DCPU0_NO_WAIT" \
	"greedy: fair, $G, CPU 0 cannot halt: liveness, CPUs done" O2
add pass live "-DGREEDY -DSPIN_MAX=2 -DFAIR_BOUND" \
	"greedy: fair with fair_bound_us, $G, halting heads: liveness, CPUs done" O2
add pass live "-DGREEDY -DSPIN_MAX=2 -DFAIR_BOUND -DCPU0_NO_WAIT" \
	"greedy: fair with fair_bound_us, $G, CPU 0 cannot halt: liveness, CPUs done" O2
add pass live "-DGREEDY -DSPIN_MAX=2 -DUNFAIR" \
	"greedy: unfair, $G, halting heads: liveness, CPUs done" O2
add pass live "-DGREEDY -DSPIN_MAX=2 -DUNFAIR -DCPU0_NO_WAIT" \
	"greedy: unfair, $G, CPU 0 cannot halt: liveness, CPUs done" O2
add pass safety "-DGREEDY -DPASS_BOUND=1" \
	"greedy: fair, $G, pass_bound 1: safety (head passed at most once)" O1
add pass head "-DGREEDY -DPASS_BOUND=1" \
	"greedy: fair, $G, pass_bound 1, halting heads: liveness, every head" O2
add pass safety "-DGREEDY -DPASS_SCALE=2" \
	"greedy: fair, $G, pass_scale 2: safety (head passed at most 2 x 2 + 2 x 1 times)" O2
add pass safety "-DGREEDY -DPASS_SCALE=2 -DUNFAIR" \
	"greedy: unfair, $G, pass_scale 2: safety (head passed at most 2 x 2 + 2 x 1 times)" O2
add pass safety "-DGREEDY -DPASS_SCALE=2 -DOTHER_LOCK" \
	"greedy: fair, $G, pass_scale 2, stealing past another lock's queue too: safety (the credit is per lock)" O2
add pass safety "-DGREEDY -DPASS_SCALE=2 -DOTHER_LOCK -DUNFAIR" \
	"greedy: unfair, $G, pass_scale 2, stealing past another lock's queue too: safety" O2
add pass safety "-DGREEDY -DNCPU=4 -DITERS=1" \
	"greedy: fair, 3 CPUs x 1 + greedy stealer: safety" O2
add pass safety "-DGREEDY -DNCPU=4 -DITERS=1 -DUNFAIR" \
	"greedy: unfair, 3 CPUs x 1 + greedy stealer: safety" O2

# The bugs: BUG_NO_PASS_BOUND is the C code before the pass bound.  Its
# liveness counterexamples are for heads that give up their spin (SPIN_MAX)
# where the C code does: a head that halts halts.
add "fail:$PASSES" assert "-DGREEDY -DPASS_SCALE=2 -DOTHER_LOCK -DBUG_CREDIT_ANY_LOCK" \
	"greedy BUG_CREDIT_ANY_LOCK (fair): credit earned on another lock passes this head uncounted, without bound"
add "fail:$PASSES" assert "-DGREEDY -DBUG_NO_PASS_BOUND" \
	"greedy BUG_NO_PASS_BOUND (fair): a head passed more than pass_bound times"
add "fail:$PASSES" assert "-DGREEDY -DBUG_NO_PASS_BOUND -DUNFAIR" \
	"greedy BUG_NO_PASS_BOUND (unfair): a head passed more than pass_bound times"
add "fail:$LIVE" head-A "-DGREEDY -DSPIN_MAX=2 -DBUG_NO_PASS_BOUND" \
	"greedy BUG_NO_PASS_BOUND (fair), halting head: passed at every halt, for ever (liveness violated)"
add "fail:$LIVE" head-A "-DGREEDY -DSPIN_MAX=2 -DBUG_NO_PASS_BOUND -DFAIR_BOUND" \
	"greedy BUG_NO_PASS_BOUND (fair with fair_bound_us), halting head: liveness violated"
add "fail:$LIVE" head-A "-DGREEDY -DSPIN_MAX=2 -DBUG_NO_PASS_BOUND -DFAIR_BOUND -DCPU0_NO_WAIT" \
	"greedy BUG_NO_PASS_BOUND (fair with fair_bound_us), CPU 0 cannot halt, starvation clock never fires: liveness violated"
add "fail:$LIVE" head-A "-DGREEDY -DSPIN_MAX=2 -DBUG_NO_PASS_BOUND -DUNFAIR -DCPU0_NO_WAIT" \
	"greedy BUG_NO_PASS_BOUND (unfair), CPU 0 cannot halt, starvation clock never fires: liveness violated"
add "fail:$LIVE" live-A "-DGREEDY -DSPIN_MAX=2 -DBUG_NO_PASS_BOUND" \
	"greedy BUG_NO_PASS_BOUND (fair), halting head: CPUs never done (liveness violated)"
add "fail:$PASSES" assert "-DGREEDY -DBUG_RESERVE_BYTE_STORE" \
	"greedy BUG_RESERVE_BYTE_STORE (fair): the reservation's byte store wipes the count, a head passed more than pass_bound times"
add "fail:$PASSES" assert "-DGREEDY -DBUG_STEAL_HALF_WORD" \
	"greedy BUG_STEAL_HALF_WORD (fair): a steal that read no queue passes a new head uncounted"
add "fail:$NOQUEUE" assert "-DBUG_STEAL_HALF_WORD" \
	"BUG_STEAL_HALF_WORD (fair, 3 CPUs x 2): a steal counted past a queue that has emptied, a count with no queue"

# Where BUG_NO_PASS_BOUND cannot break liveness: the unfair head reserves
# the lock from its second halt on and keeps it while halted; the fair head
# with fair_bound_us 0 that cannot halt reserves it at once and never lets
# go (checked with CPU 0 and the stealer alone: CPU 1 would be a fair head
# that halts).  Both are still passed more than pass_bound times (above).
add pass head-A "-DGREEDY -DSPIN_MAX=2 -DBUG_NO_PASS_BOUND -DUNFAIR" \
	"greedy BUG_NO_PASS_BOUND (unfair), halting heads: liveness holds (reserved from the second halt on)" O2
add pass head-A "-DGREEDY -DNCPU=2 -DSPIN_MAX=2 -DBUG_NO_PASS_BOUND -DCPU0_NO_WAIT" \
	"greedy BUG_NO_PASS_BOUND (fair, fair_bound_us 0), CPU 0 x 2 + greedy stealer, CPU 0 cannot halt: liveness holds (reserved at once, for good)" O2

# Run them, JOBS at a time (pan is single-threaded; the machine has two
# cores), and print each result in order as soon as it and all before it
# are done.
plan=${#tests[@]}
if ((plan == 0)); then
	echo "Bail out! no test matches '$select'"
	exit 1
fi
echo "TAP version 13"
echo "1..$plan"

printed=0
flush() {
	while ((printed < plan)) && [[ -e $work/done$((printed + 1)) ]]; do
		printed=$((printed + 1))
		cat "$work/result$printed"
	done
}

running=0
for i in "${!tests[@]}"; do
	num=$((i + 1))
	IFS=$SEP read -r expect mode sflags desc opt tmodel <<<"${tests[$i]}"
	(
		run_test "$num" "$expect" "$mode" "$sflags" "$desc" "$opt" \
			"$tmodel" >"$work/result$num" 2>&1
		touch "$work/done$num"
	) &
	running=$((running + 1))
	if ((running >= JOBS)); then
		wait -n || true
		running=$((running - 1))
	fi
	flush
done
wait
flush

failed=$(cat "$work"/result* | grep -c '^not ok' || true)
echo "# $plan tests, $failed failed, $((SECONDS - t_start)) s wall clock ($JOBS jobs)"
((failed == 0))
