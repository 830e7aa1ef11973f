/*
 * What an event line's count is (prof-symbolize/count_unit.c): samples,
 * or nanoseconds when INFO's event names offcpu-time, an on-CPU sample
 * then weighing the sampling period; and what a capture cannot say.
 */
#include "unit.h"

#include "count_unit.h"

static struct count_unit unit(const char *event, uint32_t freq, uint64_t period)
{
	struct cap_info in = { .freq = freq, .period = period, .event = cap_cstr(event) };

	return count_unit_of(&in);
}

TEST(nanoseconds_when_the_event_names_offcpu_time)
{
	CHECK(!unit("cpu-clock", 99, 0).nanoseconds);
	CHECK(unit("offcpu-time", 0, 0).nanoseconds);
	CHECK(unit("cpu-clock+offcpu-time", 99, 0).nanoseconds);
	CHECK(unit("offcpu-time+cpu-clock", 99, 0).nanoseconds);
	/* A name, not a substring of one. */
	CHECK(!unit("offcpu-timex", 99, 0).nanoseconds);
	CHECK(!unit("xoffcpu-time", 99, 0).nanoseconds);
	CHECK(!unit("cpu-clock+offcpu", 99, 0).nanoseconds);
	CHECK(!unit("", 99, 0).nanoseconds);
	CHECK(unit("+offcpu-time+", 99, 0).nanoseconds);
}

TEST(the_period_or_the_frequency_rounded)
{
	CHECK_INT(unit("cpu-clock+offcpu-time", 99, 0).period_ns, 10101010);
	CHECK_INT(unit("cpu-clock+offcpu-time", 3, 0).period_ns, 333333333);
	CHECK_INT(unit("cpu-clock+offcpu-time", 7, 0).period_ns, 142857143);
	CHECK_INT(unit("cpu-clock+offcpu-time", 99, 250000).period_ns, 250000);
	CHECK_INT(unit("cpu-clock+offcpu-time", 1, 0).period_ns, 1000000000);
	/* Past 2 GHz a period rounds to 0: unknown, as with freq 0. */
	CHECK_INT(unit("cpu-clock+offcpu-time", 2000000000, 0).period_ns, 1);
	CHECK_INT(unit("cpu-clock+offcpu-time", 2000000001, 0).period_ns, 0);
	CHECK_INT(unit("cpu-clock+offcpu-time", UINT32_MAX, 0).period_ns, 0);
	CHECK_INT(unit("cpu-clock+offcpu-time", 0, 0).period_ns, 0);
}

static enum count_status count(struct count_unit u, uint32_t kind, uint64_t n, uint64_t weight,
			       uint64_t *out)
{
	struct cap_sample smp = { .count = n, .kind = kind, .weight = weight };

	return count_of(&u, &smp, out);
}

TEST(counts)
{
	struct count_unit on = unit("cpu-clock", 99, 0), off = unit("offcpu-time", 0, 0);
	struct count_unit wall = unit("cpu-clock+offcpu-time", 99, 0);
	uint64_t c;

	CHECK_INT(count(on, CAP_ON_CPU, 37, 0, &c), COUNT_OK);
	CHECK_INT(c, 37);
	CHECK_INT(count(wall, CAP_ON_CPU, 3, 0, &c), COUNT_OK);
	CHECK_INT(c, 30303030);
	CHECK_INT(count(wall, CAP_OFF_CPU, 3, 123456, &c), COUNT_OK);
	CHECK_INT(c, 123456);
	CHECK_INT(count(off, CAP_OFF_CPU, 3, 123456, &c), COUNT_OK);
	CHECK_INT(c, 123456);
	/* What neither unit can say. */
	CHECK_INT(count(on, CAP_OFF_CPU, 3, 123456, &c), COUNT_OFF_CPU_UNEXPECTED);
	CHECK_INT(count(off, CAP_ON_CPU, 3, 0, &c), COUNT_NO_PERIOD);
}

TEST(count_times_period_saturates)
{
	struct count_unit u = unit("cpu-clock+offcpu-time", 0, 10101010);
	uint64_t c;

	CHECK_INT(count(u, CAP_ON_CPU, UINT64_MAX / 10101010, 0, &c), COUNT_OK);
	CHECK(c == UINT64_MAX / 10101010 * 10101010);
	CHECK_INT(count(u, CAP_ON_CPU, UINT64_MAX / 10101010 + 1, 0, &c), COUNT_SATURATED);
	CHECK(c == UINT64_MAX);
	CHECK_INT(count(u, CAP_ON_CPU, UINT64_MAX, 0, &c), COUNT_SATURATED);
	CHECK(c == UINT64_MAX);
	/* A weight is written as it is, the largest included. */
	CHECK_INT(count(u, CAP_OFF_CPU, UINT64_MAX, UINT64_MAX, &c), COUNT_OK);
	CHECK(c == UINT64_MAX);
}
