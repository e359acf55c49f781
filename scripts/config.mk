# SPDX-License-Identifier: GPL-2.0
#
# Maps the project's Kconfig-style options onto project-local preprocessor
# symbols.  Included by the top-level Makefile and by Kbuild, so a plain
# "make -C $KDIR M=$PWD" sees the same configuration as "make".
#
# The option names follow Waiman Long's qspinlock series (v9, April 2014:
# QUEUE_SPINLOCK, ...), but they are make variables, never CONFIG_* symbols:
# the kernel's own autoconf.h and auto.conf already define
# CONFIG_PARAVIRT_SPINLOCKS, and the project must not inherit the host
# kernel's answer.  Preprocessor symbols carry a PVQ_ prefix.
#
# Precedence: make command line > fragment (CONFIG=configs/x.config) > n.

PVQ_ROOT ?= $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))/..
CONFIG ?= configs/all.config

PVQ_FRAGMENT := $(if $(filter /%,$(CONFIG)),$(CONFIG),$(PVQ_ROOT)/$(CONFIG))
ifeq ($(wildcard $(PVQ_FRAGMENT)),)
$(error CONFIG=$(CONFIG): no such fragment; see configs/)
endif
include $(PVQ_FRAGMENT)

PVQ_OPTIONS := QUEUE_SPINLOCK PARAVIRT_SPINLOCKS PARAVIRT_UNFAIR_LOCKS \
	       LOCK_STATS LOCK_DEBUG

# A kernel that tools/build-kernel built with CONFIG_PVQ_SPINLOCKS=y has
# the lock library built in, as its arch_spinlock_t: a module built
# against it takes the kernel's options (whatever the fragment says),
# links to the kernel's slow paths, and pvq_locks.ko is not built.
# Kbuild sees CONFIG_PVQ_SPINLOCKS in the kernel's auto.conf; the
# top-level Makefile includes that file for such a kernel.
ifeq ($(CONFIG_PVQ_SPINLOCKS),y)
PVQ_BUILTIN := y
override QUEUE_SPINLOCK := $(if $(CONFIG_QUEUE_SPINLOCK),y,n)
override PARAVIRT_SPINLOCKS := $(if $(CONFIG_PARAVIRT_SPINLOCKS),y,n)
override PARAVIRT_UNFAIR_LOCKS := $(if $(CONFIG_PARAVIRT_UNFAIR_LOCKS),y,n)
override LOCK_STATS := $(if $(CONFIG_PVQ_LOCK_STATS),y,n)
override LOCK_DEBUG := $(if $(CONFIG_PVQ_LOCK_DEBUG),y,n)
override TORTURE_FAULTS := $(if $(CONFIG_PVQ_TORTURE_FAULTS),y,n)
# The torture module's stall report needs the library's diagnostics.
ifneq ($(CONFIG_PVQ_TORTURE_HOOKS),y)
$(error this kernel has CONFIG_PVQ_SPINLOCKS but not CONFIG_PVQ_TORTURE_HOOKS, which qspinlock_torture needs: enable it)
endif
else
PVQ_BUILTIN := n
endif

# Kernel builds only (tools/build-kernel): pvq makes this tree's lock the
# kernel's arch_spinlock_t; upstream keeps 6.1's own (the "stock" kernel).
KERNEL_SPINLOCK ?= pvq
ifeq ($(filter pvq upstream,$(KERNEL_SPINLOCK)),)
$(error KERNEL_SPINLOCK=$(KERNEL_SPINLOCK): must be pvq or upstream)
endif

$(foreach o,$(PVQ_OPTIONS),$(eval $(o) ?= n))
$(foreach o,$(PVQ_OPTIONS),$(if $(filter-out y n,$($(o))),\
	$(error $(o)=$($(o)): must be y or n)))

ifeq ($(PARAVIRT_UNFAIR_LOCKS),y)
ifneq ($(QUEUE_SPINLOCK)$(PARAVIRT_SPINLOCKS),yy)
$(error PARAVIRT_UNFAIR_LOCKS=y depends on QUEUE_SPINLOCK=y and PARAVIRT_SPINLOCKS=y)
endif
endif

# Test-only fault injection in the torture module: accepted from the make
# command line alone, so that no fragment (and no default build) can carry it.
TORTURE_FAULTS ?= n
ifeq ($(TORTURE_FAULTS)$(PVQ_BUILTIN),yn)
ifneq ($(origin TORTURE_FAULTS),command line)
$(error TORTURE_FAULTS=y is test-only: set it on the make command line, never in a fragment)
endif
endif

# Derived: the PV queued spinlock needs both of its parents.  Not an
# option of its own (override: a command-line value cannot change it).
override PV_QSPINLOCK := $(if $(filter yy,$(QUEUE_SPINLOCK)$(PARAVIRT_SPINLOCKS)),y,n)

# Derived: the NMI kick comes with the PV layer.  A kernel may leave it out
# (CONFIG_PVQ_NMI_KICK=n): a module built against it follows.
ifeq ($(PVQ_BUILTIN),y)
override NMI_KICK := $(if $(CONFIG_PVQ_NMI_KICK),y,n)
else
override NMI_KICK := $(PARAVIRT_SPINLOCKS)
endif

# Every option, PV_QSPINLOCK and NMI_KICK X becomes -DPVQ_X: one spelling
# per option.
pvq-defines-$(TORTURE_FAULTS)	+= -DPVQ_TORTURE_FAULTS
$(foreach o,$(PVQ_OPTIONS) PV_QSPINLOCK NMI_KICK,\
	$(eval pvq-defines-$($(o)) += -DPVQ_$(o)))
PVQ_DEFINES := $(pvq-defines-y)

# Torture types built into qspinlock_torture, in report order: the
# kernel's own spinlock_t (torture-only), then every type of
# qspinlock/lock_types_list.h whose option is y (ALWAYS: always), read
# from its PVQ_LOCK_TYPE(name, prefix, lock, option) lines.
PVQ_TYPE_LIST := $(shell sed -n 's/^PVQ_LOCK_TYPE(\([a-z0-9_]*\),.*, *\([A-Z0-9_]*\))$$/\1:\2/p' \
	$(PVQ_ROOT)/qspinlock/lock_types_list.h)
# Every PVQ_LOCK_TYPE line must parse (one line each, option last), or
# the C tables and PVQ_TYPES would disagree.
PVQ_TYPE_LINES := $(shell grep -c '^PVQ_LOCK_TYPE' \
	$(PVQ_ROOT)/qspinlock/lock_types_list.h)
ifneq ($(words $(PVQ_TYPE_LIST)),$(PVQ_TYPE_LINES))
$(error qspinlock/lock_types_list.h: $(PVQ_TYPE_LINES) PVQ_LOCK_TYPE lines, $(words $(PVQ_TYPE_LIST)) read; keep each on one line)
endif
PVQ_TYPES := spin_lock $(foreach t,$(PVQ_TYPE_LIST),$(if $(filter y,\
	$(if $(filter ALWAYS,$(lastword $(subst :, ,$(t)))),y,\
	$($(lastword $(subst :, ,$(t)))))),$(firstword $(subst :, ,$(t)))))
