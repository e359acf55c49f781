/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine under the kernel's PV backends (shim/vcpu.c), so that
 * pv/pv_backends.c itself runs in userspace: each CPU's thread is a vCPU
 * of a KVM guest, with what the backends use of it.
 *
 *   halt(), safe_halt()   the vCPU's thread parks on a futex word of its
 *                         own until an event it may wake for is posted
 *   KVM_HC_KICK_CPU       posts "unhalt" to the vCPU with that APIC id,
 *                         online or not; it stays posted until that vCPU's
 *                         next halt ends (KVM's pv_unhalted), so a kick
 *                         that lands before the halt ends it at once
 *   smp_send_reschedule() posts an interrupt, which ends safe_halt() (or a
 *                         halt() with interrupts on), never a halt() with
 *                         interrupts off; refused with a warning for a CPU
 *                         that is not online, as x86 does
 *   irq_work_queue()      the work runs when its CPU takes its interrupt
 *   apic->send_IPI(cpu, NMI_VECTOR)
 *                         posts an NMI, which ends any halt; the vCPU takes
 *                         it (runs the NMI handlers, asm/nmi.h) when the
 *                         halt ends, and at the points of the NMI kick's
 *                         halt (pv_nmi_halt.S, modelled in vcpu.c); on a
 *                         CPU outside cpu_online_mask it runs no handler,
 *                         as the kernel's exc_nmi(); nested NMIs return
 *                         through repeat_nmi, as x86-64's entry code
 *   cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, ...)
 *                         its callback runs in shim_cpu_up(), before the
 *                         CPU is online
 *   CPUID                 the hypervisor bit and KVM's leaves, from
 *                         shim_machine
 *
 * What the tests may look at and change is below.
 */
#ifndef SHIM_VCPU_H
#define SHIM_VCPU_H

#include <linux/types.h>

/*
 * What CPUID says.  The default is bare metal (all zero); a test fills it
 * in before pvq_pv_select().
 */
struct shim_machine {
	bool hypervisor;	/* CPUID.1:ECX.hypervisor */
	unsigned int kvm_base;	/* KVM's leaves at this base, 0: none */
	u32 kvm_features;	/* leaf base + 1, EAX: BIT(KVM_FEATURE_*) */
	u32 kvm_hints;		/* leaf base + 1, EDX: BIT(KVM_HINTS_*) */
	bool xen_pv;		/* xen_pv_domain() */
	bool tdx_guest;		/* X86_FEATURE_TDX_GUEST */
	bool sev_es;		/* cc_platform_has(CC_ATTR_GUEST_STATE_ENCRYPT) */
};

extern struct shim_machine shim_machine;

/*
 * CPU n's APIC id: never n, so that a kick addressed to a CPU number
 * instead of its APIC id wakes the wrong vCPU, or none.
 */
#define SHIM_APICID(cpu)	(2 * (cpu) + 1)

enum shim_vcpu_state {
	SHIM_VCPU_RUNNING,
	SHIM_VCPU_HALTED_IRQS_OFF,	/* in halt() with interrupts off */
	SHIM_VCPU_HALTED_IRQS_ON,	/* in safe_halt(), or halt() with them on */
};

/* In a halt (parked, or about to park), and how. */
enum shim_vcpu_state shim_vcpu_state(int cpu);
/* Halts begun, and of those the ones that parked (did not end at once). */
unsigned long shim_vcpu_halts(int cpu);
unsigned long shim_vcpu_sleeps(int cpu);
/* KVM_HC_KICK_CPU hypercalls and reschedule IPIs received. */
unsigned long shim_vcpu_unhalts(int cpu);
unsigned long shim_vcpu_ipis(int cpu);
/* KVM_HC_KICK_CPU hypercalls to an APIC id that no vCPU has. */
unsigned long shim_vcpu_stray_kicks(void);
/* NMIs sent to a vCPU, taken by it, and taken but claimed by nobody. */
unsigned long shim_vcpu_nmis(int cpu);
unsigned long shim_vcpu_nmis_taken(int cpu);
unsigned long shim_vcpu_unknown_nmis(int cpu);
/* NMIs it took outside cpu_online_mask: no handler ran. */
unsigned long shim_vcpu_offline_nmis(int cpu);
/* The NMIs of the NMI kick's self-tests, taken at once in their window. */
unsigned long shim_vcpu_selftest_nmis(int cpu);

/*
 * Take the calling vCPU's pending NMI, interrupting the instruction at
 * @ip (0: none of interest); returns where the handlers resume it.
 */
unsigned long shim_nmi_take_pending(unsigned long ip);

/*
 * The next NMI this thread takes gets a nested NMI after the @step-th
 * instruction of its handlers (they are single-stepped, @step >= 1);
 * shim_nmi_nested() says whether that came, or the handlers ended first.
 */
void shim_nmi_nest_at(unsigned long step);
bool shim_nmi_nested(void);

/*
 * The NMI frame's layout is one the NMI handler does not know: pt_regs are
 * followed by something else, and IRET pops a frame elsewhere (tests).
 */
extern int shim_nmi_frame_unknown;

/*
 * CPU hotplug as the kernel does it, for a CPU no thread plays or whose
 * thread waits for nothing: down takes it out of cpu_online_mask; up runs
 * the prepare callbacks, forgets its pending NMI (INIT) and puts it back.
 */
void shim_cpu_down(int cpu);
void shim_cpu_up(int cpu);

/*
 * Non-zero: the kernel is set to panic on unknown NMIs (unknown_nmi_panic),
 * as pvq_nmi_may_claim_unknown() answers when the glue is not linked.
 */
extern int shim_unknown_nmi_panics;

/* NMI handlers registered, and CPU hotplug states set up, now. */
int shim_nmi_handlers_registered(void);
int shim_cpuhp_states_set_up(void);

/*
 * Called on the halting CPU's thread as halt() or safe_halt() begins:
 * after the backend's last check, before the vCPU halts; for the NMI
 * kick's halt, after its compare, before the NMIs pending at the hlt are
 * taken.  A test holds the CPU there to send a kick into that window.
 */
extern void (*shim_vcpu_halt_hook)(void);

#endif /* SHIM_VCPU_H */
