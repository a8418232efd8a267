/* Pyroscope push: a bounded queue and a sending thread (push.h). */
#define _GNU_SOURCE
#include "push.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pprobe/lazylib.h"
#include "util.h"

/* libcurl, loaded by the first pusher (pprobe/lazylib.h): a start-up
 * cost of every command otherwise, for the runs that push. */
#define CURL_FNS(X) X(curl_global_init) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_setopt) \
	X(curl_easy_perform) X(curl_easy_getinfo) X(curl_easy_strerror) X(curl_easy_escape) X(curl_free) \
	X(curl_mime_init) X(curl_mime_addpart) X(curl_mime_name) X(curl_mime_filename) X(curl_mime_type) \
	X(curl_mime_data) X(curl_mime_free) X(curl_slist_append) X(curl_slist_free_all)
static struct {
	CURL_FNS(LAZYLIB_PTR)
} cu;
static const char *const cu_names[] = { CURL_FNS(LAZYLIB_NAME) };
static struct lazylib libcurl = LAZYLIB_INIT("libcurl.so.4", cu_names, cu);
#define CU(f) LAZYLIB_CALL(cu, f)

#define BACKOFF_MIN_S 1.0
#define BACKOFF_MAX_S 30.0

struct push_item {
	uint8_t *buf;
	size_t len;
	int64_t from, until;
};

struct pusher {
	struct pusher_opts o;		/* strings owned */
	char **labels;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct push_item *q;		/* ring of max_queue */
	size_t head, nr;
	bool inflight;			/* q[head] is being sent (unlocked) */
	bool stop;			/* pusher__finish: no more submits */
	double deadline;		/* monotonic seconds: give up then */
	double finish_s;		/* what the end waits for (pusher__finish) */
	double next_try;		/* monotonic: the head waits for its retry */
	double backoff;
	struct pusher_stats st;
	CURL *curl;
	struct curl_slist *headers;
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int pusher__check_label(const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv || !eq[1]) {
		snprintf(err, errlen, "label '%s' is not key=value", kv);
		return -EINVAL;
	}
	for (const char *c = kv; c < eq; c++)
		if (!(isalpha((unsigned char)*c) || *c == '_' || (c > kv && (isdigit((unsigned char)*c) || *c == '.')))) {
			snprintf(err, errlen, "label key '%.*s': letters, digits, '_' and '.', not starting with a digit",
				 (int)(eq - kv), kv);
			return -EINVAL;
		}
	for (const char *c = eq + 1; *c; c++)
		if (*c == ',' || *c == '{' || *c == '}' || *c == '=' || (unsigned char)*c < 0x20) {
			snprintf(err, errlen, "label value '%s' may not hold , { } = or control characters", eq + 1);
			return -EINVAL;
		}
	return 0;
}

static int check_app(const char *app, char *err, size_t errlen)
{
	if (!*app) {
		snprintf(err, errlen, "the application name is empty");
		return -EINVAL;
	}
	for (const char *c = app; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_') {
			snprintf(err, errlen, "application name '%s': letters, digits, '.', '-' and '_' only", app);
			return -EINVAL;
		}
	return 0;
}

/* The server's base: the URL without a trailing '/' or '/ingest'. */
static size_t base_len(const char *url)
{
	size_t n = strlen(url);
	while (n && url[n - 1] == '/')
		n--;
	if (n >= 7 && !strncmp(url + n - 7, "/ingest", 7))
		n -= 7;
	while (n && url[n - 1] == '/')
		n--;
	return n;
}

/* name=APP{k=v,...} escaped as one query value by libcurl (RFC 3986: all
 * but letters, digits and "-._~" as %XX, a blank as %20), which is what
 * Pyroscope's ingest takes apart (Go's url.ParseQuery). */
char *pusher__ingest_url(const struct pusher_opts *o, int64_t from, int64_t until)
{
	char *name = NULL, *esc = NULL, *url = NULL, rate[32] = "";
	size_t nl = strlen(o->app) + 3;
	if (!lazylib__load(&libcurl))
		return NULL;
	for (size_t i = 0; i < o->nr_labels; i++)
		nl += strlen(o->labels[i]) + 1;
	name = pp_xmalloc(nl);
	size_t k = (size_t)snprintf(name, nl, "%s{", o->app);
	for (size_t i = 0; i < o->nr_labels; i++)
		k += (size_t)snprintf(name + k, nl - k, "%s%s", i ? "," : "", o->labels[i]);
	snprintf(name + k, nl - k, "}");
	esc = CU(curl_easy_escape)(NULL, name, 0);	/* no handle needed since curl 7.82 */
	if (o->sample_rate)
		snprintf(rate, sizeof(rate), "&sampleRate=%u", o->sample_rate);
	if (!esc || asprintf(&url, "%.*s/ingest?name=%s&from=%lld&until=%lld&format=pprof&spyName=pprobe%s",
			     (int)base_len(o->url), o->url, esc, (long long)from, (long long)until, rate) < 0)
		url = NULL;
	CU(curl_free)(esc);
	free(name);
	return url;
}

static size_t discard_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
	(void)ptr, (void)ud;
	return size * nmemb;
}

enum send_result { SENT, RETRY, REJECTED };

/* One POST, unlocked. */
static enum send_result send_one(struct pusher *p, const struct push_item *it, double timeout_s, char *err,
				 size_t errlen)
{
	char *url = pusher__ingest_url(&p->o, it->from, it->until);
	char curl_err[CURL_ERROR_SIZE] = "";
	if (!url) {
		snprintf(err, errlen, "out of memory for the ingest URL");
		return RETRY;
	}
	curl_mime *mime = CU(curl_mime_init)(p->curl);
	curl_mimepart *part = CU(curl_mime_addpart)(mime);
	CU(curl_mime_name)(part, "profile");
	CU(curl_mime_filename)(part, "profile.pb.gz");
	CU(curl_mime_type)(part, "application/octet-stream");
	CU(curl_mime_data)(part, (const char *)it->buf, it->len);
	if (p->o.sample_type_config) {
		part = CU(curl_mime_addpart)(mime);
		CU(curl_mime_name)(part, "sample_type_config");
		CU(curl_mime_filename)(part, "sample_type_config.json");
		CU(curl_mime_type)(part, "application/json");
		CU(curl_mime_data)(part, p->o.sample_type_config, CURL_ZERO_TERMINATED);
	}
	long ms = (long)(timeout_s * 1000);
	CU(curl_easy_setopt)(p->curl, CURLOPT_URL, url);
	CU(curl_easy_setopt)(p->curl, CURLOPT_MIMEPOST, mime);
	CU(curl_easy_setopt)(p->curl, CURLOPT_TIMEOUT_MS, ms > 0 ? ms : 1);
	CU(curl_easy_setopt)(p->curl, CURLOPT_CONNECTTIMEOUT_MS, ms > 0 && ms < 10000 ? ms : 10000L);
	CU(curl_easy_setopt)(p->curl, CURLOPT_ERRORBUFFER, curl_err);
	CURLcode rc = CU(curl_easy_perform)(p->curl);
	long status = 0;
	CU(curl_easy_getinfo)(p->curl, CURLINFO_RESPONSE_CODE, &status);
	CU(curl_easy_setopt)(p->curl, CURLOPT_MIMEPOST, NULL);
	CU(curl_easy_setopt)(p->curl, CURLOPT_ERRORBUFFER, NULL);
	CU(curl_mime_free)(mime);
	free(url);
	if (rc == CURLE_ABORTED_BY_CALLBACK) {	/* xfer_cut */
		pthread_mutex_lock(&p->lock);
		snprintf(err, errlen, "no answer within the %.3g s the end waits for", p->finish_s);
		pthread_mutex_unlock(&p->lock);
		return RETRY;
	}
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s", curl_err[0] ? curl_err : CU(curl_easy_strerror)(rc));
		return RETRY;
	}
	if (status >= 200 && status < 300)
		return SENT;
	snprintf(err, errlen, "the server answered HTTP %ld", status);
	return status == 429 || status >= 500 ? RETRY : REJECTED;
}

/* libcurl's progress callback, at least once a second during a transfer:
 * a finish's deadline passed ends the one on the wire (a server that
 * accepted and never answers held the end for the whole 30 s timeout). */
static int xfer_cut(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct pusher *p = arg;
	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	pthread_mutex_lock(&p->lock);
	bool cut = p->stop && mono_s() >= p->deadline;
	pthread_mutex_unlock(&p->lock);
	return cut;
}

static void pop_head(struct pusher *p)
{
	free(p->q[p->head].buf);
	p->head = (p->head + 1) % p->o.max_queue;
	p->nr--;
}

static void wait_until(struct pusher *p, double when)
{
	double left = when - mono_s();
	if (left <= 0)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);	/* pthread_cond_timedwait's clock */
	double t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + left;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	pthread_cond_timedwait(&p->cond, &p->lock, &ts);
}

static void *sender(void *arg)
{
	struct pusher *p = arg;
	char err[256];
	pthread_mutex_lock(&p->lock);
	for (;;) {
		if (p->stop && (!p->nr || mono_s() >= p->deadline))
			break;
		if (!p->nr) {
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		double now = mono_s();
		if (now < p->next_try) {	/* backing off; a finish may shorten it */
			wait_until(p, p->stop && p->deadline < p->next_try ? p->deadline : p->next_try);
			continue;
		}
		struct push_item it = p->q[p->head];
		double timeout = p->o.timeout_s;
		if (p->stop && p->deadline - now < timeout)
			timeout = p->deadline - now;
		p->inflight = true;
		pthread_mutex_unlock(&p->lock);
		enum send_result r = send_one(p, &it, timeout, err, sizeof(err));
		pthread_mutex_lock(&p->lock);
		p->inflight = false;
		if (r == SENT) {
			p->st.sent++;
			p->st.bytes_sent += it.len;
			p->backoff = BACKOFF_MIN_S;
			p->next_try = 0;
			pop_head(p);
			continue;
		}
		snprintf(p->st.last_error, sizeof(p->st.last_error), "%s", err);
		p->st.error_seq++;
		if (r == REJECTED) {
			p->st.rejected++;
			pop_head(p);
			continue;
		}
		p->st.failures++;
		p->next_try = mono_s() + p->backoff;
		p->backoff = p->backoff * 2 < BACKOFF_MAX_S ? p->backoff * 2 : BACKOFF_MAX_S;
	}
	p->st.unsent += p->nr;
	while (p->nr)
		pop_head(p);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int pusher__check_target(const char *url, const char *app, char *err, size_t errlen)
{
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		snprintf(err, errlen, "push URL '%s': http:// or https:// expected", url);
		return -EINVAL;
	}
	return app ? check_app(app, err, errlen) : 0;
}

struct pusher *pusher__new(const struct pusher_opts *opts, char *err, size_t errlen)
{
	if (pusher__check_target(opts->url, opts->app, err, errlen)) {
		errno = EINVAL;
		return NULL;
	}
	for (size_t i = 0; i < opts->nr_labels; i++)
		if (pusher__check_label(opts->labels[i], err, errlen)) {
			errno = EINVAL;
			return NULL;
		}
	if (!lazylib__load(&libcurl)) {
		snprintf(err, errlen, "%s", libcurl.why);
		errno = ENOENT;
		return NULL;
	}
	if (CU(curl_global_init)(CURL_GLOBAL_DEFAULT)) {
		snprintf(err, errlen, "libcurl cannot be initialized");
		errno = EIO;
		return NULL;
	}
	struct pusher *p = pp_xcalloc(1, sizeof(*p));
	p->o = *opts;
	p->o.url = pp_xstrdup(opts->url);
	p->o.app = pp_xstrdup(opts->app);
	p->o.sample_type_config = opts->sample_type_config ? pp_xstrdup(opts->sample_type_config) : NULL;
	p->labels = pp_xcalloc(opts->nr_labels + 1, sizeof(char *));
	for (size_t i = 0; i < opts->nr_labels; i++)
		p->labels[i] = pp_xstrdup(opts->labels[i]);
	p->o.labels = (const char *const *)p->labels;
	if (!p->o.max_queue)
		p->o.max_queue = 16;
	if (p->o.max_queue < 2)
		p->o.max_queue = 2;
	if (p->o.timeout_s <= 0)
		p->o.timeout_s = 30;
	p->q = pp_xcalloc(p->o.max_queue, sizeof(*p->q));
	p->backoff = BACKOFF_MIN_S;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->curl = CU(curl_easy_init)();
	if (p->curl) {
		CU(curl_easy_setopt)(p->curl, CURLOPT_NOSIGNAL, 1L);	/* a thread: no SIGALRM for timeouts */
		CU(curl_easy_setopt)(p->curl, CURLOPT_WRITEFUNCTION, discard_body);
		CU(curl_easy_setopt)(p->curl, CURLOPT_USERAGENT, "pprobe");
		/* a redirect (http to https behind a proxy, a moved ingest path)
		 * is followed as curl -L would, the POST kept as a POST */
		CU(curl_easy_setopt)(p->curl, CURLOPT_FOLLOWLOCATION, 1L);
		CU(curl_easy_setopt)(p->curl, CURLOPT_MAXREDIRS, 5L);
		CU(curl_easy_setopt)(p->curl, CURLOPT_POSTREDIR, (long)CURL_REDIR_POST_ALL);
		CU(curl_easy_setopt)(p->curl, CURLOPT_NOPROGRESS, 0L);
		CU(curl_easy_setopt)(p->curl, CURLOPT_XFERINFOFUNCTION, xfer_cut);
		CU(curl_easy_setopt)(p->curl, CURLOPT_XFERINFODATA, p);
		/* no "Expect: 100-continue" round trip before each body */
		p->headers = CU(curl_slist_append)(NULL, "Expect:");
		CU(curl_easy_setopt)(p->curl, CURLOPT_HTTPHEADER, p->headers);
		/* The thread takes no signal: a SIGCHLD delivered to it would be
		 * lost to the caller's signalfd (and the command's exit with it). */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (!pthread_create(&p->thread, NULL, sender, p))
			p->started = true;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (!p->started) {
		snprintf(err, errlen, "cannot start the sending thread");
		pusher__delete(p);
		errno = EAGAIN;
		return NULL;
	}
	return p;
}

void pusher__submit(struct pusher *p, uint8_t *buf, size_t len, int64_t from, int64_t until)
{
	pthread_mutex_lock(&p->lock);
	p->st.submitted++;
	if (p->stop) {
		p->st.unsent++;
		free(buf);
		pthread_mutex_unlock(&p->lock);
		return;
	}
	if (p->nr == p->o.max_queue) {
		/* Full: the oldest that is not on the wire goes. */
		size_t victim = p->inflight ? 1 : 0;
		size_t at = (p->head + victim) % p->o.max_queue;
		free(p->q[at].buf);
		for (size_t i = victim; i + 1 < p->nr; i++)
			p->q[(p->head + i) % p->o.max_queue] = p->q[(p->head + i + 1) % p->o.max_queue];
		p->nr--;
		p->st.dropped++;
	}
	p->q[(p->head + p->nr) % p->o.max_queue] = (struct push_item){ buf, len, from, until };
	p->nr++;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void pusher__stats(struct pusher *p, struct pusher_stats *st)
{
	pthread_mutex_lock(&p->lock);
	*st = p->st;
	st->queued = p->nr;
	pthread_mutex_unlock(&p->lock);
}

void pusher__finish(struct pusher *p, double deadline_s)
{
	if (!p->started)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	p->finish_s = deadline_s > 0 ? deadline_s : 0;
	p->deadline = mono_s() + p->finish_s;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	p->started = false;
}

void pusher__delete(struct pusher *p)
{
	if (!p)
		return;
	pusher__finish(p, 0);
	while (p->nr)
		pop_head(p);
	if (p->curl)
		CU(curl_easy_cleanup)(p->curl);
	CU(curl_slist_free_all)(p->headers);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	for (size_t i = 0; i < p->o.nr_labels; i++)
		free(p->labels[i]);
	free(p->labels);
	free((char *)p->o.url);
	free((char *)p->o.app);
	free((char *)p->o.sample_type_config);
	free(p->q);
	free(p);
}
