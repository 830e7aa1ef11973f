#include "sink.h"

#include <string.h>

#include "options.h"
#include "stream.h"

void sink_init(struct sink *k, const struct options *o)
{
	memset(k, 0, sizeof(*k));
	k->rot.h.sock = -1;
	k->path = o->output;
	k->rotating = o->rotate > 0;
	k->keep = o->keep;
	if (!k->rotating)
		k->f = output_open(o->output, true);
}

bool sink_owns_stdout(const struct sink *k)
{
	return k->rotating || k->f == stdout;
}

bool sink_start(struct sink *k)
{
	if (!k->rotating)
		return true;
	return rotation_start(&k->rot, k->path, k->keep) && (k->f = rotation_next(&k->rot));
}

FILE *sink_file(const struct sink *k)
{
	return k->f;
}

bool sink_next(struct sink *k, uint64_t samples)
{
	FILE *f = k->f;

	k->f = NULL;
	return rotation_finish(&k->rot, f, samples) && (k->f = rotation_next(&k->rot));
}

bool sink_failed(const struct sink *k)
{
	return !k->f || ferror(k->f);
}

bool sink_finish(struct sink *k, uint64_t samples)
{
	FILE *f = k->f;

	k->f = NULL;
	if (!f)
		return false;
	return k->rotating ? rotation_finish(&k->rot, f, samples) : output_close(f, k->path);
}

bool sink_report(const struct sink *k)
{
	return k->rotating && rotation_report(&k->rot);
}

void sink_close(struct sink *k)
{
	if (k->f)
		fclose(k->f);
	k->f = NULL;
	rotation_stop(&k->rot);
}
