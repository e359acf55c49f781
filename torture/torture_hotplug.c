// SPDX-License-Identifier: GPL-2.0
/*
 * qspinlock_torture: CPU hotplug during a run (onoff_interval_ms).
 *
 * One kthread alternates: take a random hot-pluggable CPU offline with
 * remove_cpu(), wait onoff_interval_ms ms, bring it back with add_cpu(), wait
 * again.  A CPU that fails to come back is retried before anything else
 * goes offline, so at most one CPU is ever missing because of us.
 *
 * The writers need no help: a CPU can only go offline through
 * stop_machine(), which must run on every online CPU, so it waits until a
 * writer there leaves its preemption-disabled lock section; the scheduler
 * then moves the writer (and widens its CPU affinity).  Nothing of the lock
 * library stays behind on the dead CPU: see Documentation/pv.rst.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "torture_hotplug.h"

#define onoff_alert(fmt, ...) \
	pr_alert("%s-torture: onoff: " fmt, onoff_type, ##__VA_ARGS__)

/* add_cpu() tries per CPU when the run ends (it may fail with -EBUSY). */
#define TORTURE_ONLINE_TRIES	10

static const char *onoff_type = "?";
static int onoff_interval_ms;
static int onoff_holdoff_secs;
static int onoff_verbose;
static struct task_struct *onoff_task;

/*
 * CPUs this run took offline and has not brought back.  Only the hotplug
 * thread writes it, then torture_onoff_stop() once the thread is gone.
 */
static struct cpumask onoff_offlined;
static unsigned long offl_tried, offl_ok, onl_tried, onl_ok;
static unsigned int onoff_left;

/* Sleep @ms, or less when kthread_stop() comes. */
static void torture_onoff_sleep(unsigned int ms)
{
	/*
	 * set_current_state() is a full barrier: either we see the stop
	 * flag below, or kthread_stop()'s wake-up (issued after setting it)
	 * finds us sleeping and ends the timeout.
	 */
	set_current_state(TASK_INTERRUPTIBLE);
	if (!kthread_should_stop())
		schedule_timeout(msecs_to_jiffies(ms));
	__set_current_state(TASK_RUNNING);
}

/*
 * A random online CPU that may go offline, or -1.  cpu_is_hotpluggable()
 * leaves out the CPUs whose offline control is disabled, CPU 0 on x86:
 * remove_cpu(0) fails there with -EPERM.
 */
static int torture_onoff_pick(void)
{
	unsigned int n = 0, k;
	int cpu;

	for_each_online_cpu(cpu)
		if (cpu_is_hotpluggable(cpu))
			n++;
	if (!n)
		return -1;
	k = get_random_u32() % n;
	for_each_online_cpu(cpu)
		if (cpu_is_hotpluggable(cpu) && !k--)
			return cpu;
	return -1;
}

/* Failures (-EBUSY while hotplug is disabled, ...) are normal: count them. */
static void qtorture_offline(int cpu)
{
	int ret;

	offl_tried++;
	ret = remove_cpu(cpu);
	if (ret) {
		/* > 0: it was offline already, not our doing. */
		if (onoff_verbose)
			onoff_alert("offline CPU %d failed: %d\n", cpu, ret);
		return;
	}
	offl_ok++;
	cpumask_set_cpu(cpu, &onoff_offlined);
	if (onoff_verbose > 1)
		onoff_alert("CPU %d offline\n", cpu);
}

static bool qtorture_online(int cpu)
{
	int ret;

	onl_tried++;
	ret = add_cpu(cpu);
	if (ret < 0) {
		if (onoff_verbose)
			onoff_alert("online CPU %d failed: %d\n", cpu, ret);
		return false;
	}
	/* > 0: somebody else brought it back already; it is online. */
	onl_ok++;
	cpumask_clear_cpu(cpu, &onoff_offlined);
	if (onoff_verbose > 1)
		onoff_alert("CPU %d online\n", cpu);
	return true;
}

static int torture_onoff_fn(void *unused)
{
	bool idle_said = false;
	int cpu;

	torture_onoff_sleep(onoff_holdoff_secs * MSEC_PER_SEC);
	while (!kthread_should_stop()) {
		/* A CPU of ours that failed to come back goes first. */
		cpu = cpumask_first(&onoff_offlined);
		if (cpu < nr_cpu_ids) {
			qtorture_online(cpu);
		} else {
			cpu = torture_onoff_pick();
			if (cpu >= 0) {
				qtorture_offline(cpu);
			} else if (!idle_said) {
				onoff_alert("no hot-pluggable CPU online: nothing to do\n");
				idle_said = true;
			}
		}
		torture_onoff_sleep(onoff_interval_ms);
	}
	return 0;
}

int torture_onoff_start(const char *type, int interval_ms, int holdoff_secs,
			int verbose)
{
	struct task_struct *task;

	if (!interval_ms)
		return 0;
	onoff_type = type;
	onoff_interval_ms = interval_ms;
	onoff_holdoff_secs = holdoff_secs;
	onoff_verbose = verbose;
	task = kthread_run(torture_onoff_fn, NULL, "qspinlock_torture_onoff");
	if (IS_ERR(task))
		return PTR_ERR(task);
	onoff_task = task;
	return 0;
}

/* Bring @cpu back, retrying a while: hotplug may be disabled for a moment. */
static void qtorture_online_retry(int cpu)
{
	int i;

	for (i = 0; i < TORTURE_ONLINE_TRIES; i++) {
		if (qtorture_online(cpu))
			return;
		msleep(100);
	}
}

void torture_onoff_stop(void)
{
	int cpu;

	if (onoff_task)
		kthread_stop(onoff_task);
	onoff_task = NULL;
	for_each_cpu(cpu, &onoff_offlined)
		qtorture_online_retry(cpu);
	onoff_left = cpumask_weight(&onoff_offlined);
	if (onoff_left)
		onoff_alert("CPUs taken offline by this run that stay offline: %*pbl\n",
			    cpumask_pr_args(&onoff_offlined));
}

unsigned int torture_onoff_left(void)
{
	return onoff_left;
}

void torture_onoff_format(char *buf, size_t size)
{
	size_t len = strnlen(buf, size);

	if (!onoff_interval_ms || len >= size)
		return;
	scnprintf(buf + len, size - len,
		  " offl=%lu/%lu onl=%lu/%lu offl_left=%u",
		  offl_ok, offl_tried, onl_ok, onl_tried, onoff_left);
}
