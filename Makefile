# SPDX-License-Identifier: GPL-2.0
#
# pvqspinlock: out-of-tree queued spinlock modules and their test harness.
# make help prints the lines below that start with "#   " (keep them so).
#
#   make                 build the modules (pvq_locks.ko, qspinlock_torture.ko,
#                        pvq_fastpath.ko) against KDIR (default: Debian's KVER)
#   make test            the whole test suite, as CI runs it
#   make bench           the main job: every lock type at 0.5x-4x overcommit,
#                        report in results/ (Documentation/bench.rst)
#   make run             the quick look: every type side by side at 2x
#   make kbench          real workloads on the guest kernels (kbench.rst)
#   make kernel          a guest kernel with the lock as its arch_spinlock_t
#                        (CONFIG=, default configs/all.config)
#   make qemu            QEMU with KVM's PV unhalt under TCG, the testbed
#                        tcg-pvunhalt (Documentation/testbeds.rst)
#   make kernel-series   regenerate kernel/patches/ from this tree
#   make test-kernels    every kernel fragment on every version, and the
#                        build matrix (make kernel-matrix alone)
#   make soak            long torture runs of every type
#   make vmtest          the VM torture tests alone
#   make selftests       the userspace tests alone
#   make check           W=1, sparse, checkpatch, shellcheck, documents, words,
#                        tool options, options shown in documents,
#                        durations quoted in several documents
#   make install         the modules through DKMS (make uninstall removes them)
#   make deps            install what is missing (apt-get) and extract the
#                        kselftest/checkpatch files from linux-source-6.1
#   make clean           remove what the builds made (not out/)
#   make help            this list
#
#   Variables (README.md, "Options"; make -n TARGET shows the plan):
#   build: CONFIG=configs/<fragment>.config, QUEUE_SPINLOCK=,
#     PARAVIRT_SPINLOCKS=, PARAVIRT_UNFAIR_LOCKS=, LOCK_STATS=, LOCK_DEBUG=
#     (y or n), KVER= (6.12 or 6.1), KDIR=
#   every guest: TESTBED= (tcg-pvunhalt, tcg or kvm), KVM=1 (TESTBED=kvm),
#     HOST_CPUS= (taskset list; default this process's CPUs, at most what
#     one guest can take at the highest level)
#   bench: LEVELS= RUNS= SECS= HOGS= SCENARIO= TORTURE_ARGS= LIB_ARGS=
#     TAG= BASELINE= BENCH_ARGS= (more tools/bench options)
#   kbench: KERNELS= LEVELS= RUNS= SECS= WORKLOADS= COUNTERS= PROFILE=
#     HOGS= NEIGHBOUR=1 SINGLE=1 SINGLE_LEVELS= TAG= KBENCH_ARGS=
#   soak: MINUTES= LEVELS= TORTURE_ARGS= LIB_ARGS= SOAK_ARGS=
#   run: RUN_ARGS= (tools/run-overcommit options)
#   kernel: CONFIG= KVER= KERNEL_DEBUG=y TORTURE_FAULTS=y;
#     test-kernels, kernel-matrix: MATRIX_ARGS= (tools/kernel-matrix)
#
# See README.md for the options.

PVQ_ROOT := $(CURDIR)

# The kernel version (KVER=6.1, ...: one with a series in kernel/patches/;
# the default is tools/lib/functions.sh's DEFAULT_KVER), for make kernel
# and for the modules: the newest Debian headers of that version, never
# the host's `uname -r` (the host may run a kernel with no headers at
# all).  Or a kernel that make kernel built
# (KDIR=out/kernel/<version>/<name>/build).
KVER ?= $(shell sed -n 's/^DEFAULT_KVER=//p' tools/lib/functions.sh)
KDIR ?= $(shell ls -d /lib/modules/$(KVER).*/build 2>/dev/null | sort -V | tail -n 1)

# A kernel with our lock built in: its options rule (scripts/config.mk).
ifneq ($(shell grep -sx CONFIG_PVQ_SPINLOCKS=y $(KDIR)/include/config/auto.conf),)
include $(KDIR)/include/config/auto.conf
endif
include scripts/config.mk

# The testbed every tool boots its guests on (tools/lib/functions.sh,
# Documentation/testbeds.rst): tools/vmrun and the tools that use it read
# PVQ_TESTBED.
# KVM=1 is TESTBED=kvm: the guests under KVM, for a host with hardware
# virtualization. Off by default: the TCG testbeds run on any machine
# (these have no usable KVM) and give the same guest everywhere, and
# figures taken under KVM are not comparable with those published.
ifneq ($(filter 1 y,$(KVM)),)
ifneq ($(filter-out kvm,$(TESTBED)),)
$(error KVM=$(KVM) and TESTBED=$(TESTBED) disagree: give one of them)
endif
TESTBED := kvm
endif
ifdef TESTBED
export PVQ_TESTBED := $(TESTBED)
endif

# make -n bench (kbench, soak, run): the tool's own plan (its --dry-run)
# instead of the build steps, which kbuild cannot pretend to run.
MAKE_DRY_RUN := $(findstring n,$(filter-out --%,$(firstword -$(MAKEFLAGS))))

# make bench and make kbench run on tcg-pvunhalt unless TESTBED= says
# otherwise (Documentation/testbeds.rst, "Which testbed the benchmarks
# use"), which needs the QEMU that make qemu builds.
BENCH_NEEDS_QEMU := $(if $(filter tcg kvm,$(TESTBED)),,y)

# Where make deps extracts the kselftest and checkpatch files.
DEPS_DIR ?= $(CURDIR)/.deps

# Variables the Kbuild sub-make must see (command-line variables propagate,
# but a fragment's values are make-file assignments and would not).
PVQ_KBUILD_VARS := CONFIG=$(CONFIG) TORTURE_FAULTS=$(TORTURE_FAULTS) \
		   $(foreach o,$(PVQ_OPTIONS),$(o)=$($(o)))

MAKEFLAGS += --no-print-directory

.PHONY: all modules clean clean-modules check checkpatch sparse docs-check shellcheck words-check options-check figures-check doc-options-check times-check deps deps-check test run \
	selftests vmtest print-types print-config

all: modules

modules: deps-kernel
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(PVQ_KBUILD_VARS) modules

# The module build's own files.  Not kbuild's "make M=... clean": that
# deletes every object and module under this directory, out/ included,
# i.e. the kernels make kernel built and their modules.
MODULE_DIRS := . qspinlock pv module torture bench
clean-modules:
	rm -f $(foreach d,$(MODULE_DIRS),$(addprefix $(d)/,*.o *.ko *.mod \
		*.mod.c .*.cmd)) modules.order Module.symvers

# W=1 and sparse, from scratch so every file is checked; any warning or
# sparse complaint in our files fails the target.
sparse: deps-kernel
	@$(MAKE) -s clean-modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(PVQ_KBUILD_VARS) W=1 C=2 modules \
		2>&1 | tee .check.log
	@if grep -E '(warning|error):' .check.log; then \
		echo "check: warnings above"; exit 1; fi
	@echo "check: W=1 and sparse clean"

checkpatch: deps-source
	scripts/run-checkpatch $(DEPS_DIR)

# The kernel series contain the lock: regenerate their lock patch from
# this tree (kernel-series), or fail where it is stale (series-check).
.PHONY: kernel-series series-check
kernel-series:
	@scripts/gen-kernel-series >/dev/null

series-check:
	scripts/gen-kernel-series --check

# Every shell script of the project, with shellcheck's defaults (a
# directive in a script says why where a warning is meant).  The shell of
# the scripts in tools/lib comes from their "shellcheck shell=" directive:
# functions.sh is bash, sourced by the host-side scripts; guest-init.sh is
# the guest's /init, busybox sh.
SHELL_SCRIPTS := .ci/run model/check.sh scripts/run-checkpatch \
	scripts/gen-kernel-series scripts/check-words scripts/check-options \
	scripts/check-figures scripts/check-doc-options \
	selftests/ksft_runner.sh selftests/kernel_series_test.sh \
	selftests/locktorture_verdict_test.sh selftests/kbuild_test.sh \
	selftests/vmrun_test.sh \
	$(wildcard selftests/vm/*.sh) \
	$(filter-out tools/lib,$(wildcard tools/*)) \
	tools/lib/functions.sh tools/lib/guest-init.sh tools/lib/bench-common.sh \
	tools/lib/kfastpath-guest.sh tools/lib/locktorture.sh \
	tools/lib/kbench-guest.sh tools/lib/lock-events.sh

shellcheck: deps-check
	shellcheck $(SHELL_SCRIPTS)
	@echo "shellcheck: $(words $(SHELL_SCRIPTS)) scripts clean"

# Every RST document must parse cleanly (tables included).
docs-check:
	@for f in Documentation/*.rst; do \
		rst2html --halt=warning "$$f" >/dev/null || exit 1; \
	done; echo "docs: Documentation/*.rst parse cleanly"

# The modules the Debian way, through DKMS (dkms.conf; Documentation/
# install.rst): make install builds and installs them for the newest
# installed headers of KVER; make uninstall removes them.
.PHONY: install uninstall
install: deps-check
	tools/dkms-install --kver '$(KVER)'

uninstall:
	tools/dkms-install --remove

# The targets and variables: the header comment's "#   " lines.
.PHONY: help
help:
	@sed -n '1,/^[^#]/{/^#   /s/^#   //p;}' $(firstword $(MAKEFILE_LIST))

# Every host-side tool: --help on stdout with exit 0, a bad option on
# stderr with exit 2 (scripts/check-options).
options-check:
	@scripts/check-options --self-test
	@scripts/check-options

# The figures a document quotes from a published run are the run's
# (scripts/check-figures; its self-test first).
figures-check:
	@scripts/check-figures --self-test
	@scripts/check-figures

# A duration the documents quote ("about 12 minutes" for make bench) is
# the same wherever it is quoted.
times-check:
	@scripts/check-times --self-test
	@scripts/check-times

# An option or make variable a document shows is one the tool takes
# (scripts/check-doc-options; its self-test first).
doc-options-check:
	@scripts/check-doc-options --self-test
	@scripts/check-doc-options

# No in-house words in the product (scripts/check-words says which); its
# self-test first, so that a rule that catches nothing fails.
words-check:
	@scripts/check-words --self-test
	@scripts/check-words

check: sparse checkpatch series-check docs-check shellcheck words-check options-check figures-check doc-options-check times-check

clean: clean-modules
	$(MAKE) -C selftests clean
	rm -f .check.log

deps:
	tools/deps

# Cheap presence checks; the full install only when something is missing.
deps-check:
	@tools/deps --check >/dev/null || tools/deps

deps-kernel:
	@test -n "$(KDIR)" -a -f "$(KDIR)/Makefile" || { \
		echo "no kernel headers under /lib/modules/*/build (KDIR=$(KDIR)): run 'make deps'"; \
		exit 1; }

deps-source:
	@test -f $(DEPS_DIR)/scripts/checkpatch.pl || { \
		echo "kselftest/checkpatch files missing: run 'make deps'"; exit 1; }

selftests: deps-source
	$(MAKE) -C selftests KSFT_DIR=$(DEPS_DIR)/tools/testing/selftests $(PVQ_KBUILD_VARS) run_tests

vmtest: modules
	selftests/vm/run_vm_tests.sh --types "$(PVQ_TYPES)"

test: deps-check
	tools/testall

# The quick look (the main job is make bench, below).  Extra options for
# tools/run-overcommit via RUN_ARGS=; HOST_CPUS= the host CPUs.
RUN_OPTS = $(if $(HOST_CPUS),--host-cpus '$(HOST_CPUS)') $(RUN_ARGS)
run: deps-check
ifneq ($(MAKE_DRY_RUN),)
	$(info make run: make modules; then tools/run-overcommit --types "$(strip $(PVQ_TYPES))" $(strip $(RUN_OPTS)))
else
	$(MAKE) modules
	tools/run-overcommit --types "$(PVQ_TYPES)" $(RUN_OPTS)
endif

print-types:
	@echo $(PVQ_TYPES)

print-config:
	@$(foreach o,$(PVQ_OPTIONS),echo $(o)=$($(o));)

# The benchmark: every built type at several overcommit levels, repeated,
# with a report (results/<date>-<time>-<tag>/report.md); see
# Documentation/bench.rst.
# Its knobs, all optional:
#   LEVELS="0.5 1 2 4" RUNS=3 SECS=4 HOGS=0 TAG=default BASELINE=spin_lock
#   SCENARIO=default|heavy|long-hold|hogs (named workloads, tools/bench --help)
#   TORTURE_ARGS="nlocks=2 ..." LIB_ARGS="pv_backend=ipi spin_threshold=64"
#   HOST_CPUS=0-7 (default: this process's CPUs, at most what one guest
#   can take at the highest level); BENCH_ARGS="--variant ... --types ..."
#   (any other tools/bench option, last, so it wins)
BENCH_OPTS = $(if $(LEVELS),--levels '$(LEVELS)') \
	     $(if $(RUNS),--runs '$(RUNS)') \
	     $(if $(SECS),--secs '$(SECS)') \
	     $(if $(HOGS),--hogs '$(HOGS)') \
	     $(if $(SCENARIO),--scenario '$(SCENARIO)') \
	     $(if $(TAG),--tag '$(TAG)') \
	     $(if $(BASELINE),--baseline '$(BASELINE)') \
	     $(if $(TORTURE_ARGS),--torture-args '$(TORTURE_ARGS)') \
	     $(if $(LIB_ARGS),--lib-args '$(LIB_ARGS)') \
	     $(if $(HOST_CPUS),--host-cpus '$(HOST_CPUS)') \
	     $(BENCH_ARGS)

# The long soak (not in make test): every type with irq_mode=mixed, nested
# locks and CPU hotplug at 2x and 4x overcommit; see Documentation/torture.rst.
#   MINUTES=30 LEVELS="2 4" TORTURE_ARGS="..." LIB_ARGS="pv_backend=strict"
#   HOST_CPUS= SOAK_ARGS="..." (any other tools/soak option)
SOAK_OPTS = $(if $(MINUTES),--minutes '$(MINUTES)') \
	    $(if $(LEVELS),--levels '$(LEVELS)') \
	    $(if $(TORTURE_ARGS),--torture-args '$(TORTURE_ARGS)') \
	    $(if $(LIB_ARGS),--lib-args '$(LIB_ARGS)') \
	    $(if $(HOST_CPUS),--host-cpus '$(HOST_CPUS)') \
	    $(SOAK_ARGS)

.PHONY: soak
soak: deps-check
ifneq ($(MAKE_DRY_RUN),)
	$(info make soak: tools/soak --types "$(strip $(PVQ_TYPES))" $(strip $(SOAK_OPTS)))
else
	tools/soak --types "$(strip $(PVQ_TYPES))" $(SOAK_OPTS)
endif

# A guest kernel whose arch_spinlock_t is this tree's lock, as the fragment
# CONFIG= selects (default configs/all.config, as for the modules; make
# kernel always passes it, so tools/build-kernel's own default,
# configs/unfair.config, applies only when it is run by hand)
# (kernel/patches/<KVER>/ on Debian's linux-source-<KVER>;
# KERNEL_SPINLOCK=upstream in configs/stock.config: the stock kernel's
# lock), built and cached under out/kernel/<KVER>/<fragment>/; the last
# line printed is its bzImage.
# KERNEL_DEBUG=y: the DEBUG_SPINLOCK + PROVE_LOCKING kernel;
# TORTURE_FAULTS=y: with the test-only fault injection.
# See Documentation/kernel.rst.
# QEMU from Debian's source package with qemu/patches/ (KVM's PV unhalt
# under TCG), built and cached in out/qemu/ (tools/build-qemu); the last
# line printed is the binary.
.PHONY: qemu
qemu: deps-check
	@tools/build-qemu

.PHONY: kernel test-kernels
kernel: deps-check kernel-series
	@tools/build-kernel --kver '$(KVER)' --config '$(CONFIG)' \
		$(if $(filter y,$(KERNEL_DEBUG)),--debug) \
		$(if $(filter y,$(TORTURE_FAULTS)),--faults)

# The kernels make test does not build (base, native, pv, unfair, stock):
# each is built and boots to a shell that runs locktorture; and the debug
# kernel (DEBUG_SPINLOCK, PROVE_LOCKING) runs locktorture with lockdep
# silent.
# For every version: the default one's test kernel is make test's, the
# others' are tested here.  Then the build matrix on the default version:
# every lock choice x PARAVIRT x lock debugging, and random configurations
# of the series' symbols, compiled (tools/kernel-matrix; MATRIX_ARGS=).
test-kernels: deps-check qemu
	@rc=0; for v in $$(ls kernel/patches | sort -V); do \
		if [ "$$v" != "$(KVER)" ]; then \
			selftests/vm/kernel_tests.sh --kver $$v \
				--outdir out/kernel-tests/$$v || rc=1; \
		fi; \
		selftests/vm/kernel_tests.sh --kver $$v --all-kernels \
			--outdir out/kernel-tests/$$v-all || rc=1; \
	done; \
	tools/kernel-matrix --kver '$(KVER)' $(MATRIX_ARGS) || rc=1; \
	exit $$rc

# The build matrix alone.
.PHONY: kernel-matrix
kernel-matrix: deps-check
	tools/kernel-matrix --kver '$(KVER)' $(MATRIX_ARGS)

.PHONY: bench fastpath-bench test-bench bench-clean

bench: deps-check
ifneq ($(MAKE_DRY_RUN),)
	$(info make bench: $(if $(BENCH_NEEDS_QEMU),make qemu (cached once built);) make modules; make -C bench; then this plan:)
	+@tools/bench --dry-run --types "$(strip $(PVQ_TYPES))" $(BENCH_OPTS)
else
	@# Bad options fail here, before the build.
	@tools/bench --dry-run --types "$(strip $(PVQ_TYPES))" $(BENCH_OPTS) >/dev/null
	$(if $(BENCH_NEEDS_QEMU),@tools/build-qemu)
	$(MAKE) modules
	$(MAKE) -C bench
	BENCH_MAKE_COMMAND="$(strip make bench $(MAKEOVERRIDES))" \
		tools/bench --types "$(strip $(PVQ_TYPES))" $(BENCH_OPTS)
endif

# Real workloads (dbench, hackbench, futex: perf bench futex, memory:
# stress-ng brk, locktorture spin_lock and spin_lock_irq) on the kernels
# make kernel builds, K guests at once per
# overcommit level, with a report in the form of the qspinlock v9 results
# (Raghavendra K T, 27 April 2014)
# (results/<date>-<time>-kbench/report.md); see Documentation/kbench.rst.
#   KERNELS="base unfair native pv stock" LEVELS="1 2" RUNS=3 SECS=4
#   WORKLOADS="dbench hackbench futex memory locktorture locktorture_irq"
#   COUNTERS=all
#   HOGS=0 NEIGHBOUR=1 SINGLE=1 TAG=kbench SINGLE_LEVELS=4 PROFILE="K ..."
#   HOST_CPUS= KBENCH_ARGS="..." (any other tools/kbench option, last)
# Then, unless SINGLE=1 or SINGLE_LEVELS is empty, the same kernels at
# SINGLE_LEVELS in one guest of that many vCPUs per host CPU
# (results/<date>-<time>-kbench-single/): guests of 2 vCPUs have little in-guest
# contention, so lock choice shows in the one large guest
# (Documentation/performance.rst, "Real workloads on the NMI kick").
SINGLE_LEVELS ?= 4
KBENCH_OPTS = $(if $(KERNELS),--kernels '$(KERNELS)') \
	      $(if $(LEVELS),--levels '$(LEVELS)') \
	      $(if $(RUNS),--runs '$(RUNS)') \
	      $(if $(SECS),--secs '$(SECS)') \
	      $(if $(WORKLOADS),--workloads '$(WORKLOADS)') \
	      $(if $(COUNTERS),--counters '$(COUNTERS)') \
	      $(if $(PROFILE),--profile '$(PROFILE)') \
	      $(if $(HOGS),--hogs '$(HOGS)') \
	      $(if $(filter 1 y,$(NEIGHBOUR)),--neighbour) \
	      $(if $(filter 1 y,$(SINGLE)),--single) \
	      $(if $(TAG),--tag '$(TAG)') \
	      $(if $(HOST_CPUS),--host-cpus '$(HOST_CPUS)') \
	      $(KBENCH_ARGS)
# The one-guest run: the same options, then (the last one counts) its own.
KBENCH_SINGLE = $(if $(filter 1 y,$(SINGLE)),,$(strip $(SINGLE_LEVELS)))
KBENCH_SINGLE_OPTS = $(KBENCH_OPTS) --single --levels '$(SINGLE_LEVELS)' \
	      --tag '$(or $(TAG),kbench)-single'

.PHONY: kbench test-kbench
kbench: deps-check
ifneq ($(MAKE_DRY_RUN),)
	$(info make kbench: $(if $(BENCH_NEEDS_QEMU),make qemu (cached once built); )the kernels (make kernel, cached once built); then this plan:)
	+@tools/kbench --dry-run $(KBENCH_OPTS)
	$(if $(KBENCH_SINGLE),+@tools/kbench --dry-run $(KBENCH_SINGLE_OPTS))
else
	@# Bad options fail here, before any kernel is built.
	@tools/kbench --dry-run $(KBENCH_OPTS) >/dev/null
	$(if $(KBENCH_SINGLE),@tools/kbench --dry-run $(KBENCH_SINGLE_OPTS) >/dev/null)
	$(if $(BENCH_NEEDS_QEMU),@tools/build-qemu)
	KBENCH_MAKE_COMMAND="$(strip make kbench $(MAKEOVERRIDES))" \
		tools/kbench $(KBENCH_OPTS)
	$(if $(KBENCH_SINGLE),KBENCH_MAKE_COMMAND="$(strip make kbench $(MAKEOVERRIDES))" \
		tools/kbench $(KBENCH_SINGLE_OPTS))
endif

# make kbench's own tests: parsers and report on fixed input (no VM).
test-kbench:
	tools/test-kbench

# The uncontended fast-path microbenchmark alone (userspace, seconds).
fastpath-bench:
	$(MAKE) -C bench run

# The benchmark tooling's own tests (statistics, report, parsing; no VM).
test-bench:
	tools/test-bench

bench-clean:
	$(MAKE) -C bench clean

clean: bench-clean
