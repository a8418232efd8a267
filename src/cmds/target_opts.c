/* Value parsers of the options record, trace and stat share, and the one
 * reading of -e and --filter. */
#include <errno.h>
#include <stdlib.h>

#include "drain.h"
#include "event_spec.h"
#include "target_opts.h"
#include "util.h"

int opt_parse_duration(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	char *end;
	double d = strtod(arg, &end);
	if (end == arg || *end || !(d > 0))
		return seterr(err, errlen, "bad duration '%s': seconds, e.g. 2.5", arg), -EINVAL;
	*OPT_FIELD(o, opts, double) = d;
	return 0;
}

int opt_parse_ring_pages(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	char *end;
	long pages = strtol(arg, &end, 10);
	if (end == arg || *end || pages <= 0 || (pages & (pages - 1)))
		return seterr(err, errlen, "-m wants a power of two of pages, got '%s'", arg), -EINVAL;
	*OPT_FIELD(o, opts, size_t) = (size_t)pages;
	return 0;
}

int opt_parse_max_queue(const struct opt *o, void *opts, const char *arg, char *err, size_t errlen)
{
	uint64_t v = drain__parse_size(arg);
	if (!v)
		return seterr(err, errlen, "--max-queue wants a size in bytes with K, M or G, e.g. 512M; got '%s'",
			      arg), -EINVAL;
	*OPT_FIELD(o, opts, uint64_t) = v;
	return 0;
}

const char *event_opts__check(const struct opt_list *events)
{
	return events->nr && events->v[0].key != 'e' ? EVENT_FILTER_NEEDS_E : NULL;
}

int event_opts__add(struct event_list *evl, const struct opt_list *events, const char *dflt, char *err,
		    size_t errlen)
{
	size_t nr_e = 0;
	for (size_t i = 0; i < events->nr; i++)
		nr_e += events->v[i].key == 'e';
	if (!nr_e && dflt)
		return event_list__add(evl, dflt, err, errlen);
	for (size_t i = 0; i < events->nr; i++) {
		const struct opt_item *it = &events->v[i];
		int ret = it->key == 'e' ? event_list__add(evl, it->arg, err, errlen)
					 : event_list__add_filter(evl, it->arg, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}
