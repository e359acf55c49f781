// SPDX-License-Identifier: GPL-2.0
/*
 * The machine under the kernel's PV backends: vCPU halts, KVM's kick
 * hypercall, reschedule IPIs, irq_work and CPUID.  See vcpu.h.
 *
 * Each vCPU has one futex word of events posted to it: UNHALT (a
 * KVM_HC_KICK_CPU for it) and IRQ (an interrupt pending: a reschedule IPI
 * or an irq_work self-IPI).  A halt parks the vCPU's thread until an event
 * it may wake for is set.  The word is read before the thread parks and
 * FUTEX_WAIT parks only if it has not changed since, so an event posted at
 * any moment, before the halt included, ends the halt.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bug.h>
#include <linux/cc_platform.h>
#include <linux/compiler.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/kvm_para.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/nmi.h>
#include <asm/processor.h>
#include <asm/ptrace.h>

#include "pv_nmi.h"
#include "shim.h"
#include "vcpu.h"
#include <xen/xen.h>

#define SHIM_EV_UNHALT	1U	/* KVM's pv_unhalted */
#define SHIM_EV_IRQ	2U	/* an interrupt is pending */
#define SHIM_EV_NMI	4U	/* an NMI is pending (NMIs coalesce, as on x86) */

struct shim_vcpu {
	u32 events;			/* the futex word: SHIM_EV_* */
	int state;			/* enum shim_vcpu_state */
	unsigned long halts;
	unsigned long sleeps;
	unsigned long unhalts;
	unsigned long ipis;
	unsigned long nmis;		/* NMIs sent to it */
	unsigned long nmis_taken;	/* NMIs it took (sent ones coalesce) */
	unsigned long unknown_nmis;	/* taken, and claimed by no handler */
	unsigned long offline_nmis;	/* taken outside the online mask */
	unsigned long selftest_nmis;	/* the NMI kick's self-tests' */
	/* Queued irq_works: only this CPU's own thread touches the list. */
	struct irq_work *irq_works;
} __aligned(SHIM_CACHELINE);

static struct shim_vcpu shim_vcpus[SHIM_NR_CPUS];
static unsigned long shim_stray_kicks;

/* @cpu's vCPU; a CPU number out of range aborts. */
static struct shim_vcpu *shim_vcpu_of(int cpu)
{
	(void)shim_cpu_offset(cpu);
	return &shim_vcpus[cpu];
}

struct shim_machine shim_machine;
void (*shim_vcpu_halt_hook)(void);

DEFINE_PER_CPU(u16, x86_cpu_to_apicid);

/* After shim.c has made the per-CPU areas (its constructor is 101). */
static void __attribute__((constructor(102))) shim_vcpu_setup(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu(x86_cpu_to_apicid, cpu) = SHIM_APICID(cpu);
}

static void shim_vcpu_count(unsigned long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static long shim_futex(u32 *uaddr, int op, u32 val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void shim_vcpu_post(int cpu, u32 event)
{
	struct shim_vcpu *v = shim_vcpu_of(cpu);

	/*
	 * Release: what the sender did before (the lock it released, the
	 * hand-over it made) is visible to the vCPU that sees the event;
	 * pairs with the acquires in shim_vcpu_halt().
	 */
	__atomic_fetch_or(&v->events, event, __ATOMIC_RELEASE);
	shim_futex(&v->events, FUTEX_WAKE_PRIVATE, INT_MAX);
}

/*
 * Park until an event that ends a halt is posted: a kick, an NMI, or with
 * interrupts on an interrupt.  @hook: call shim_vcpu_halt_hook first.
 */
static void shim_vcpu_halt(bool irqs_on, bool hook)
{
	struct shim_vcpu *v = shim_vcpu_of(shim_cpu());
	u32 wake = SHIM_EV_UNHALT | SHIM_EV_NMI | (irqs_on ? SHIM_EV_IRQ : 0);
	void (*halt_hook)(void) = READ_ONCE(shim_vcpu_halt_hook);
	bool slept = false;
	u32 ev;

	if (hook && halt_hook)
		halt_hook();
	shim_vcpu_count(&v->halts);
	WRITE_ONCE(v->state, irqs_on ? SHIM_VCPU_HALTED_IRQS_ON :
				       SHIM_VCPU_HALTED_IRQS_OFF);
	for (;;) {
		/* Acquire: pairs with the release in shim_vcpu_post(). */
		ev = __atomic_load_n(&v->events, __ATOMIC_ACQUIRE);
		if (ev & wake)
			break;
		if (!slept)
			shim_vcpu_count(&v->sleeps);
		slept = true;
		/* EAGAIN: posted meanwhile; EINTR: look again. */
		shim_futex(&v->events, FUTEX_WAIT_PRIVATE, ev);
	}
	/*
	 * KVM forgets a kick when the vCPU leaves the halted state, whatever
	 * ended it.  Acquire: a kick taken away here still shows the change
	 * it announced to the checks after the halt.
	 */
	__atomic_fetch_and(&v->events, ~SHIM_EV_UNHALT, __ATOMIC_ACQUIRE);
	WRITE_ONCE(v->state, SHIM_VCPU_RUNNING);
}

/* The NMI handlers, by type (asm/nmi.h). */
#define SHIM_NMI_HANDLERS	4

struct shim_nmi_handler {
	nmi_handler_t fn;
	const char *name;
};

static struct shim_nmi_handler shim_nmi_handlers[2][SHIM_NMI_HANDLERS];

int shim_register_nmi_handler(unsigned int type, nmi_handler_t fn,
			      const char *name)
{
	struct shim_nmi_handler *h;

	if (type > NMI_UNKNOWN)
		shim_die("NMI handler type %u is not modelled", type);
	for (h = shim_nmi_handlers[type];
	     h < shim_nmi_handlers[type] + SHIM_NMI_HANDLERS; h++) {
		if (!READ_ONCE(h->fn)) {
			h->name = name;
			/* Release: the name before the handler is seen. */
			__atomic_store_n(&h->fn, fn, __ATOMIC_RELEASE);
			return 0;
		}
	}
	return -EBUSY;
}

void unregister_nmi_handler(unsigned int type, const char *name)
{
	struct shim_nmi_handler *h;

	for (h = shim_nmi_handlers[type];
	     h < shim_nmi_handlers[type] + SHIM_NMI_HANDLERS; h++)
		if (READ_ONCE(h->fn) && !strcmp(h->name, name))
			WRITE_ONCE(h->fn, NULL);
}

int shim_nmi_handlers_registered(void)
{
	int type, i, n = 0;

	for (type = NMI_LOCAL; type <= NMI_UNKNOWN; type++)
		for (i = 0; i < SHIM_NMI_HANDLERS; i++)
			n += !!READ_ONCE(shim_nmi_handlers[type][i].fn);
	return n;
}

/* The handlers of @type, as the kernel's nmi_handle(): how many claimed. */
static int shim_nmi_handle(unsigned int type, struct pt_regs *regs)
{
	struct shim_nmi_handler *h;
	nmi_handler_t fn;
	int handled = 0;

	for (h = shim_nmi_handlers[type];
	     h < shim_nmi_handlers[type] + SHIM_NMI_HANDLERS; h++) {
		fn = __atomic_load_n(&h->fn, __ATOMIC_ACQUIRE);
		if (fn)
			handled += fn(type, regs);
	}
	return handled;
}

/*
 * An NMI's stack as x86-64's entry code (entry_64.S, without FRED) builds it
 * for an NMI from kernel mode: pt_regs end in the "outermost" copy of the
 * hardware frame, and IRET pops the "iret" copy right above them.  A
 * handler that sets only regs->ip returns where it was interrupted.
 */
struct shim_nmi_stack {
	struct pt_regs regs;	/* ends in the "outermost" copy */
	struct pt_regs iret;	/* the hardware frame only: the "iret" copy */
};

#define SHIM_KERNEL_CS		0x10
#define SHIM_KERNEL_DS		0x18
#define SHIM_NMI_FLAGS		0x2	/* interrupts off */

/*
 * Where a nested NMI points the "iret" frame: repeat_nmi, which copies the
 * "outermost" frame into it and runs the handlers again.  Its address is
 * never one of the windows' labels.
 */
static const char shim_repeat_nmi[1];
#define SHIM_REPEAT_NMI		((unsigned long)shim_repeat_nmi)

/*
 * A nested NMI, as the entry code's nested path: the first NMI's handlers
 * are interrupted, and the "iret" frame (all five words) is rewritten to
 * return to repeat_nmi on the NMI stack.
 */
static void shim_nmi_nest(struct shim_nmi_stack *s)
{
	s->iret = (struct pt_regs){
		.ip = SHIM_REPEAT_NMI, .cs = SHIM_KERNEL_CS,
		.flags = SHIM_NMI_FLAGS, .sp = (unsigned long)(s + 1),
		.ss = SHIM_KERNEL_DS,
	};
}

/*
 * Nested NMIs at any instruction: shim_nmi_nest_at(n) single-steps the
 * handlers of the next NMI this thread takes (the x86 trap flag; each
 * step is a SIGTRAP) and nests an NMI after its n-th instruction.
 */
static __thread unsigned long shim_nest_at, shim_nest_step;
static __thread struct shim_nmi_stack *shim_nest_stack;
static __thread bool shim_nested;

static void shim_nmi_sigtrap(int sig, siginfo_t *si, void *uc)
{
	struct shim_nmi_stack *s = shim_nest_stack;

	if (s && ++shim_nest_step == shim_nest_at) {
		shim_nmi_nest(s);
		shim_nested = true;
	}
}

void shim_nmi_nest_at(unsigned long step)
{
	struct sigaction sa = {
		.sa_sigaction = shim_nmi_sigtrap, .sa_flags = SA_SIGINFO,
	};

	if (sigaction(SIGTRAP, &sa, NULL))
		shim_die("sigaction(SIGTRAP) failed");
	shim_nest_at = step;
	shim_nested = false;
}

bool shim_nmi_nested(void)
{
	return shim_nested;
}

/* The trap flag, set and cleared below the red zone. */
static __always_inline void shim_trap_flag(bool on)
{
	if (on)
		asm volatile("lea -128(%%rsp), %%rsp\n\tpushfq\n\t"
			     "orq $0x100, (%%rsp)\n\tpopfq\n\t"
			     "lea 128(%%rsp), %%rsp" ::: "memory", "cc");
	else
		asm volatile("lea -128(%%rsp), %%rsp\n\tpushfq\n\t"
			     "andq $~0x100, (%%rsp)\n\tpopfq\n\t"
			     "lea 128(%%rsp), %%rsp" ::: "memory", "cc");
}

/* The handlers of one NMI (or its repeat), single-stepped if asked. */
static int shim_nmi_handlers_run(struct shim_nmi_stack *s)
{
	bool step = shim_nest_at && !shim_nested;
	int handled;

	if (step) {
		shim_nest_step = 0;
		WRITE_ONCE(shim_nest_stack, s);
		shim_trap_flag(true);
	}
	handled = shim_nmi_handle(NMI_LOCAL, &s->regs) ||
		  shim_nmi_handle(NMI_UNKNOWN, &s->regs);
	if (step) {
		shim_trap_flag(false);
		WRITE_ONCE(shim_nest_stack, NULL);
		shim_nest_at = 0;
	}
	return handled;
}

/*
 * One NMI taken at @ip: the handlers, and again for each NMI nested in
 * them (repeat_nmi: the "outermost" frame copied into the "iret" one);
 * returns where IRET goes.  On a CPU outside cpu_online_mask no handler
 * runs, as the kernel's exc_nmi() returns at once there.  IRET must go
 * back to the interrupted context: a frame that mixes ours and a nested
 * NMI's is an IRET onto the NMI stack, an oops; it warns.
 */
int shim_nmi_frame_unknown;

static unsigned long shim_nmi_take(struct shim_vcpu *v, unsigned long ip,
				   unsigned long *taken)
{
	struct pt_regs from = {
		.ip = ip, .cs = SHIM_KERNEL_CS, .flags = SHIM_NMI_FLAGS,
		.sp = (unsigned long)__builtin_frame_address(0),
		.ss = SHIM_KERNEL_DS,
	};
	struct shim_nmi_stack stack = { .regs = from, .iret = from };

	/* A layout the handler does not know: the frame IRET pops is elsewhere. */
	if (READ_ONCE(shim_nmi_frame_unknown)) {
		memset(&stack.iret, 0, sizeof(stack.iret));
		shim_vcpu_count(taken);
		shim_in_nmi = 1;
		if (cpu_online(shim_cpu()) && !shim_nmi_handlers_run(&stack))
			shim_vcpu_count(&v->unknown_nmis);
		shim_in_nmi = 0;
		return from.ip;
	}

	shim_vcpu_count(taken);
	shim_in_nmi = 1;
	do {
		stack.iret = stack.regs;	/* first_nmi, or repeat_nmi */
		if (!cpu_online(shim_cpu()))
			shim_vcpu_count(&v->offline_nmis);
		else if (!shim_nmi_handlers_run(&stack))
			shim_vcpu_count(&v->unknown_nmis);
	} while (stack.iret.ip == SHIM_REPEAT_NMI);
	shim_in_nmi = 0;
	WARN_ONCE(stack.iret.cs != from.cs || stack.iret.sp != from.sp ||
		  stack.iret.ss != from.ss,
		  "NMI returns to %#lx on stack %#lx, not the interrupted %#lx\n",
		  stack.iret.ip, stack.iret.sp, from.sp);
	return stack.iret.ip;
}

unsigned long shim_nmi_take_pending(unsigned long ip)
{
	struct shim_vcpu *v = shim_vcpu_of(shim_cpu());

	/* Not inside an NMI: the CPU holds the next one until it returns. */
	if (shim_in_nmi)
		return ip;
	while (__atomic_load_n(&v->events, __ATOMIC_RELAXED) & SHIM_EV_NMI) {
		/* Acquire: what the sender did before, for the handlers. */
		__atomic_fetch_and(&v->events, ~SHIM_EV_NMI, __ATOMIC_ACQUIRE);
		ip = shim_nmi_take(v, ip, &v->nmis_taken);
	}
	return ip;
}

int shim_unknown_nmi_panics;

/*
 * The glue's answer (module/pv_params.c), for the tests that link the
 * backends without it: the kernel panics on unknown NMIs when a test says.
 */
__attribute__((weak)) bool pvq_nmi_may_claim_unknown(void)
{
	return !READ_ONCE(shim_unknown_nmi_panics);
}

/* CPU hotplug: the dynamic prepare state's callbacks. */
#define SHIM_CPUHP_STATES	4

static int (*shim_cpuhp_prepare[SHIM_CPUHP_STATES])(unsigned int cpu);

int cpuhp_setup_state_nocalls(enum cpuhp_state state, const char *name,
			      int (*startup)(unsigned int cpu),
			      int (*teardown)(unsigned int cpu))
{
	int i;

	if (state != CPUHP_BP_PREPARE_DYN || teardown)
		shim_die("cpuhp state %d (%s) is not modelled", state, name);
	for (i = 0; i < SHIM_CPUHP_STATES; i++) {
		if (!shim_cpuhp_prepare[i]) {
			shim_cpuhp_prepare[i] = startup;
			return CPUHP_BP_PREPARE_DYN + i;
		}
	}
	return -EBUSY;
}

void cpuhp_remove_state_nocalls(enum cpuhp_state state)
{
	int i = state - CPUHP_BP_PREPARE_DYN;

	if (i < 0 || i >= SHIM_CPUHP_STATES || !shim_cpuhp_prepare[i])
		shim_die("cpuhp state %d was not set up", state);
	shim_cpuhp_prepare[i] = NULL;
}

int shim_cpuhp_states_set_up(void)
{
	int i, n = 0;

	for (i = 0; i < SHIM_CPUHP_STATES; i++)
		n += !!shim_cpuhp_prepare[i];
	return n;
}

void shim_cpu_down(int cpu)
{
	set_cpu_online(cpu, false);
}

void shim_cpu_up(int cpu)
{
	int i;

	for (i = 0; i < SHIM_CPUHP_STATES; i++)
		if (shim_cpuhp_prepare[i] && shim_cpuhp_prepare[i](cpu))
			shim_die("cpuhp prepare callback failed for CPU %d", cpu);
	/* INIT and SIPI: a pending NMI is forgotten. */
	__atomic_fetch_and(&shim_vcpu_of(cpu)->events, ~SHIM_EV_NMI,
			   __ATOMIC_RELAXED);
	set_cpu_online(cpu, true);
}

static void shim_apic_send_IPI(int cpu, int vector)
{
	if (vector != NMI_VECTOR)
		shim_die("IPI vector %#x is not modelled", vector);
	shim_vcpu_count(&shim_vcpu_of(cpu)->nmis);
	shim_vcpu_post(cpu, SHIM_EV_NMI);
}

static struct apic shim_apic = { .send_IPI = shim_apic_send_IPI };
struct apic *apic = &shim_apic;
int x2apic_mode;

void halt(void)
{
	bool irqs_on = !shim_irqs_off;

	shim_vcpu_halt(irqs_on, true);
	shim_nmi_take_pending(0);
	shim_irq_take_pending();
}

void safe_halt(void)
{
	/* The sti: a pending interrupt ends the hlt at once. */
	shim_irqs_off = 0;
	shim_vcpu_halt(true, true);
	shim_nmi_take_pending(0);
	shim_irq_take_pending();
}

/*
 * pv/pv_nmi_halt.S, modelled: the labels are three bytes in a row, as the
 * instructions are in order there, and the vCPU's instruction pointer
 * walks them.  Pending NMIs are taken before the compare, in the window
 * (after the compare, where shim_vcpu_halt_hook runs, before the hlt) and
 * while halted, each with that instruction pointer in its pt_regs; an
 * NMI handler that moves it to the woken label ends the wait there.
 */
asm(".pushsection .rodata\n"
    ".globl pvq_nmi_selftest_start, pvq_nmi_selftest_insn, pvq_nmi_selftest_woken\n"
    "pvq_nmi_selftest_start: .byte 0\n"
    "pvq_nmi_selftest_insn: .byte 0\n"
    "pvq_nmi_selftest_woken: .byte 0\n"
    ".globl pvq_nmi_halt_u8_window, pvq_nmi_halt_u8_insn, pvq_nmi_halt_u8_woken\n"
    "pvq_nmi_halt_u8_window: .byte 0\n"
    "pvq_nmi_halt_u8_insn: .byte 0\n"
    "pvq_nmi_halt_u8_woken: .byte 0\n"
    ".globl pvq_nmi_halt_u32_window, pvq_nmi_halt_u32_insn, pvq_nmi_halt_u32_woken\n"
    "pvq_nmi_halt_u32_window: .byte 0\n"
    "pvq_nmi_halt_u32_insn: .byte 0\n"
    "pvq_nmi_halt_u32_woken: .byte 0\n"
    ".popsection\n");

static bool shim_nmi_halt(const void *ptr, u32 val, size_t size,
			  const char *window, const char *insn,
			  const char *woken)
{
	void (*hook)(void) = READ_ONCE(shim_vcpu_halt_hook);
	unsigned long ip;
	u32 now;

	if (!shim_irqs_off || shim_in_nmi)
		shim_die("an NMI-kick halt with interrupts on, or in an NMI");
	ip = shim_nmi_take_pending((unsigned long)window);
	if (ip == (unsigned long)window) {
		now = size == 1 ? READ_ONCE(*(const u8 *)ptr) :
				  READ_ONCE(*(const u32 *)ptr);
		if (now != val)
			return false;
		if (hook)
			hook();
		ip = shim_nmi_take_pending((unsigned long)insn);
	}
	if (ip == (unsigned long)insn) {
		shim_vcpu_halt(false, false);
		/* The NMI that ended the halt returns past the hlt. */
		ip = shim_nmi_take_pending((unsigned long)woken);
	}
	if (ip != (unsigned long)woken)
		shim_die("NMI-kick halt: an NMI handler returned to %#lx", ip);
	return true;
}

/*
 * The self-test's window (pv_nmi_halt.S), modelled: it sends this CPU an
 * NMI (through the APIC driver, not @icr), which it takes in the window.
 */
bool pvq_nmi_selftest_window(u32 *icr, unsigned long loops, u32 cmd,
			     u32 icr_msr)
{
	unsigned long start = (unsigned long)pvq_nmi_selftest_start;

	struct shim_vcpu *v = shim_vcpu_of(shim_cpu());

	if (!shim_irqs_off || shim_in_nmi)
		shim_die("the NMI kick's self-test with interrupts on, or in an NMI");
	/* Taken at once, and counted apart from the kicks' NMIs. */
	return shim_nmi_take(v, start, &v->selftest_nmis) ==
	       (unsigned long)pvq_nmi_selftest_woken;
}

bool pvq_nmi_halt_u8(u8 *ptr, u8 val, unsigned long open_loops)
{
	return shim_nmi_halt(ptr, val, 1, pvq_nmi_halt_u8_window,
			     pvq_nmi_halt_u8_insn, pvq_nmi_halt_u8_woken);
}

bool pvq_nmi_halt_u32(u32 *ptr, u32 val, unsigned long open_loops)
{
	return shim_nmi_halt(ptr, val, 4, pvq_nmi_halt_u32_window,
			     pvq_nmi_halt_u32_insn, pvq_nmi_halt_u32_woken);
}

void shim_irq_take_pending(void)
{
	struct shim_vcpu *v = shim_vcpu_of(shim_cpu());
	struct irq_work *work;
	unsigned int flags;

	if (shim_irqs_off)
		return;
	while (__atomic_load_n(&v->events, __ATOMIC_RELAXED) & SHIM_EV_IRQ) {
		/* Acquire: as in shim_vcpu_halt(), for the handlers. */
		__atomic_fetch_and(&v->events, ~SHIM_EV_IRQ, __ATOMIC_ACQUIRE);
		/* The handlers run as a hard interrupt: interrupts off. */
		shim_irqs_off = 1;
		while ((work = v->irq_works)) {
			v->irq_works = work->shim_next;
			/* Not pending while it runs: a new queueing reruns it. */
			flags = __atomic_and_fetch(&work->shim_flags,
						   ~SHIM_IRQ_WORK_PENDING,
						   __ATOMIC_SEQ_CST);
			work->func(work);
			/*
			 * Release, for irq_work_sync(); and only if nobody
			 * queued it again meanwhile, as the kernel does.
			 */
			__atomic_compare_exchange_n(&work->shim_flags, &flags,
						    flags & ~SHIM_IRQ_WORK_BUSY,
						    false, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED);
		}
		shim_irqs_off = 0;
	}
}

bool irq_work_queue(struct irq_work *work)
{
	struct shim_vcpu *v = shim_vcpu_of(shim_cpu());

	/* Whoever sets PENDING queues it; the others find it queued. */
	if (__atomic_fetch_or(&work->shim_flags,
			      SHIM_IRQ_WORK_PENDING | SHIM_IRQ_WORK_BUSY,
			      __ATOMIC_SEQ_CST) & SHIM_IRQ_WORK_PENDING)
		return false;
	work->shim_next = v->irq_works;
	v->irq_works = work;
	/* The self-IPI. */
	shim_vcpu_post(shim_cpu(), SHIM_EV_IRQ);
	return true;
}

void irq_work_sync(struct irq_work *work)
{
	/* Acquire: pairs with the release once the work has run. */
	while (__atomic_load_n(&work->shim_flags, __ATOMIC_ACQUIRE) &
	       SHIM_IRQ_WORK_BUSY)
		sched_yield();
}

void smp_send_reschedule(int cpu)
{
	if (WARN_ONCE(!cpu_online(cpu),
		      "reschedule IPI to CPU %d, which is not online: refused\n",
		      cpu))
		return;
	shim_vcpu_count(&shim_vcpu_of(cpu)->ipis);
	shim_vcpu_post(cpu, SHIM_EV_IRQ);
}

void shim_cpuid(unsigned int op, unsigned int *eax, unsigned int *ebx,
		unsigned int *ecx, unsigned int *edx)
{
	static const char sig[12] = "KVMKVMKVM\0\0\0";
	unsigned int base = READ_ONCE(shim_machine.kvm_base);

	if (op < KVM_CPUID_SIGNATURE || op >= KVM_CPUID_SIGNATURE + 0x10000)
		shim_die("CPUID leaf %#x is not modelled", op);
	if (base && (base < KVM_CPUID_SIGNATURE || base % 0x100))
		shim_die("KVM's CPUID leaves cannot start at %#x", base);
	*eax = *ebx = *ecx = *edx = 0;
	/* Without the hypervisor bit the range holds nothing of KVM's. */
	if (!READ_ONCE(shim_machine.hypervisor) || !base)
		return;
	if (op == base) {
		*eax = base + KVM_CPUID_FEATURES - KVM_CPUID_SIGNATURE;
		memcpy(ebx, sig, 4);
		memcpy(ecx, sig + 4, 4);
		memcpy(edx, sig + 8, 4);
	} else if (op == base + KVM_CPUID_FEATURES - KVM_CPUID_SIGNATURE) {
		*eax = READ_ONCE(shim_machine.kvm_features);
		*edx = READ_ONCE(shim_machine.kvm_hints);
	}
}

bool shim_boot_cpu_has(unsigned int feature)
{
	if (feature == X86_FEATURE_TDX_GUEST)
		return READ_ONCE(shim_machine.tdx_guest);
	if (feature != X86_FEATURE_HYPERVISOR)
		shim_die("CPU feature %u is not modelled", feature);
	return READ_ONCE(shim_machine.hypervisor);
}

bool shim_xen_pv_domain(void)
{
	return READ_ONCE(shim_machine.xen_pv);
}

bool cc_platform_has(enum cc_attr attr)
{
	return attr == CC_ATTR_GUEST_STATE_ENCRYPT &&
	       READ_ONCE(shim_machine.sev_es);
}

bool kvm_para_available(void)
{
	return READ_ONCE(shim_machine.hypervisor) &&
	       READ_ONCE(shim_machine.kvm_base);
}

long kvm_hypercall2(unsigned int nr, unsigned long p1, unsigned long p2)
{
	int cpu;

	if (!kvm_para_available())
		shim_die("hypercall %u without KVM", nr);
	if (nr != KVM_HC_KICK_CPU)
		shim_die("hypercall %u is not modelled", nr);
	/* As KVM: any vCPU with that APIC id, whatever the guest thinks of it. */
	for_each_possible_cpu(cpu) {
		if (per_cpu(x86_cpu_to_apicid, cpu) == p2) {
			shim_vcpu_count(&shim_vcpu_of(cpu)->unhalts);
			shim_vcpu_post(cpu, SHIM_EV_UNHALT);
			return 0;
		}
	}
	shim_vcpu_count(&shim_stray_kicks);
	return 0;
}

enum shim_vcpu_state shim_vcpu_state(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->state);
}

unsigned long shim_vcpu_halts(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->halts);
}

unsigned long shim_vcpu_sleeps(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->sleeps);
}

unsigned long shim_vcpu_unhalts(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->unhalts);
}

unsigned long shim_vcpu_ipis(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->ipis);
}

unsigned long shim_vcpu_nmis(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->nmis);
}

unsigned long shim_vcpu_nmis_taken(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->nmis_taken);
}

unsigned long shim_vcpu_unknown_nmis(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->unknown_nmis);
}

unsigned long shim_vcpu_offline_nmis(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->offline_nmis);
}

unsigned long shim_vcpu_selftest_nmis(int cpu)
{
	return READ_ONCE(shim_vcpu_of(cpu)->selftest_nmis);
}

unsigned long shim_vcpu_stray_kicks(void)
{
	return READ_ONCE(shim_stray_kicks);
}
