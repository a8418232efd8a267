/* Continuous profiling: each interval's profile (pprof, gzip-compressed)
 * sent to a Pyroscope server's HTTP ingest API,
 *
 *	POST URL/ingest?name=APP{k=v,...}&from=UNIX&until=UNIX&format=pprof&sampleRate=HZ&spyName=pprobe
 *
 * with the profile in the multipart form field "profile" (and the sample
 * types in "sample_type_config"), as Pyroscope's own clients send pprof.
 * For pprof, Pyroscope takes name as the prefix of the series and appends
 * the sample type: APP{...} becomes APP.cpu{...}.
 *
 * Sending never blocks the caller: a thread of its own works through a
 * bounded queue. A failed send (no connection, a timeout, 429 or 5xx) is
 * retried with exponential backoff (1 s doubling to 30 s); while it waits,
 * newer profiles queue behind it and, once the queue is full, the oldest
 * waiting one is dropped (counted): memory stays bounded whatever the
 * server does. A profile the server refuses for good (another 4xx) is
 * dropped and counted. Nothing here prints: the caller reads the counters
 * and the last error with pusher__stats(). */
#ifndef PPROBE_PUSH_H
#define PPROBE_PUSH_H

#include <stddef.h>
#include <stdint.h>

struct pusher_opts {
	const char *url;		/* the server: "http://host:4040" (a trailing /ingest is fine) */
	const char *app;		/* application name (the series' prefix) */
	const char *const *labels;	/* "key=value", nr_labels of them */
	size_t nr_labels;
	unsigned sample_rate;		/* Hz, for sampleRate= (0: left out) */
	const char *sample_type_config;	/* JSON for the form field, NULL: none */
	size_t max_queue;		/* profiles waiting at most (default 16) */
	double timeout_s;		/* one request at most (default 30 s) */
};

struct pusher_stats {
	uint64_t submitted;		/* profiles given to pusher__submit */
	uint64_t sent;			/* accepted by the server (2xx) */
	uint64_t failures;		/* attempts that failed and will be (or were) retried */
	uint64_t rejected;		/* refused for good by the server (4xx but 429): dropped */
	uint64_t dropped;		/* dropped from a full queue, never sent */
	uint64_t unsent;		/* still queued when pusher__finish gave up */
	size_t queued;			/* waiting now (the one being sent included) */
	uint64_t bytes_sent;
	char last_error[256];		/* the last failure ("" when none) */
	uint64_t error_seq;		/* bumped at each failure: has a new one happened? */
};

struct pusher;

/* Checks the options (URL scheme, label syntax) and starts the sending
 * thread. NULL with a reason in err. */
struct pusher *pusher__new(const struct pusher_opts *opts, char *err, size_t errlen);

/* Queue one profile covering [from, until] (Unix seconds). Takes buf (from
 * malloc) in every case. */
void pusher__submit(struct pusher *p, uint8_t *buf, size_t len, int64_t from, int64_t until);

void pusher__stats(struct pusher *p, struct pusher_stats *st);

/* Send what is queued, retrying until deadline_s (seconds from now) at the
 * latest, then stop the thread; what is left is counted as unsent. */
void pusher__finish(struct pusher *p, double deadline_s);

void pusher__delete(struct pusher *p);	/* finishes at once if not finished; accepts NULL */

/* The ingest URL for one profile (for tests and messages); malloc'd, NULL
 * when out of memory. */
char *pusher__ingest_url(const struct pusher_opts *opts, int64_t from, int64_t until);

/* URL http:// or https://, app (NULL: not given) as Pyroscope names allow:
 * letters, digits, '.', '-', '_'. 0 or -EINVAL with the reason in err. */
int pusher__check_target(const char *url, const char *app, char *err, size_t errlen);

/* "key=value" as Pyroscope labels allow: key [A-Za-z_][A-Za-z0-9_.]*, value
 * without , { } = and not empty. 0 or -EINVAL with the reason in err. */
int pusher__check_label(const char *kv, char *err, size_t errlen);

#endif
