/* The Pyroscope pusher against a real local HTTP server (a thread here):
 * the ingest URL and its escaping, label checks, a multipart body holding
 * the profile's bytes, retry with backoff after a 503, a 400 dropped for
 * good, a full queue dropping its oldest, and a server that is not there:
 * every profile accounted for (sent + rejected + dropped + unsent). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "push.h"

struct server {
	int fd;
	int port;
	int statuses[16];	/* answer of request i; 0: 200 */
	int nr_req;
	char first_line[16][512];
	bool body_has_profile[16];
	bool body_has_config[16];
	pthread_t th;
};

static const uint8_t PROFILE[] = { 0x1f, 0x8b, 8, 0, 'p', 'p', 'r', 'o', 'b', 'e', 0, 1, 2, 3 };

static bool contains(const char *hay, size_t n, const void *needle, size_t m)
{
	return memmem(hay, n, needle, m) != NULL;
}

static void *serve(void *arg)
{
	struct server *s = arg;
	for (;;) {
		int c = accept(s->fd, NULL, NULL);
		if (c < 0)
			return NULL;
		char buf[65536];
		size_t len = 0;
		char *hdr_end = NULL;
		while (!hdr_end && len < sizeof(buf) - 1) {
			ssize_t n = read(c, buf + len, sizeof(buf) - 1 - len);
			if (n <= 0)
				break;
			len += (size_t)n;
			buf[len] = 0;
			hdr_end = strstr(buf, "\r\n\r\n");
		}
		size_t want = 0;
		char *cl = hdr_end ? strcasestr(buf, "content-length:") : NULL;
		if (cl)
			want = (size_t)(hdr_end + 4 - buf) + strtoul(cl + 15, NULL, 10);
		while (len < want && len < sizeof(buf) - 1) {
			ssize_t n = read(c, buf + len, sizeof(buf) - 1 - len);
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		int i = s->nr_req < 16 ? s->nr_req : 15;
		char *eol = memchr(buf, '\r', len);
		snprintf(s->first_line[i], sizeof(s->first_line[i]), "%.*s", eol ? (int)(eol - buf) : 0, buf);
		s->body_has_profile[i] = contains(buf, len, "name=\"profile\"", 14) &&
					 contains(buf, len, PROFILE, sizeof(PROFILE)) &&
					 strcasestr(buf, "content-type: multipart/form-data");
		s->body_has_config[i] = contains(buf, len, "name=\"sample_type_config\"", 25) &&
					contains(buf, len, "{\"cpu\":{}}", 10);
		int st = s->statuses[i] ? s->statuses[i] : 200;
		char resp[128];
		int n = snprintf(resp, sizeof(resp), "HTTP/1.1 %d X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", st);
		if (write(c, resp, (size_t)n) < 0)
			break;
		close(c);
		s->nr_req++;
	}
	return NULL;
}

static void server_start(struct server *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bind(s->fd, (struct sockaddr *)&a, sizeof(a));
	listen(s->fd, 16);
	getsockname(s->fd, (struct sockaddr *)&a, &al);
	s->port = ntohs(a.sin_port);
	pthread_create(&s->th, NULL, serve, s);
}

static void server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR);
	close(s->fd);
	pthread_join(s->th, NULL);
}

static uint8_t *profile_copy(void)
{
	uint8_t *b = malloc(sizeof(PROFILE));
	memcpy(b, PROFILE, sizeof(PROFILE));
	return b;
}

static void test_url(void)
{
	const char *labels[] = { "env=ci", "host=a b" };
	struct pusher_opts o = { .url = "http://h:4040/ingest/", .app = "my.app", .labels = labels, .nr_labels = 2,
				 .sample_rate = 99 };
	char *u = pusher__ingest_url(&o, 10, 20);
	CHECK_STREQ(u, "http://h:4040/ingest?name=my.app%7Benv%3Dci%2Chost%3Da%20b%7D&from=10&until=20"
		       "&format=pprof&spyName=pprobe&sampleRate=99");
	free(u);
	o.url = "https://h";
	o.nr_labels = 0;
	o.sample_rate = 0;
	u = pusher__ingest_url(&o, 1, 2);
	CHECK_STREQ(u, "https://h/ingest?name=my.app%7B%7D&from=1&until=2&format=pprof&spyName=pprobe");
	free(u);

	char err[256];
	CHECK(!pusher__check_label("region=us-west-1", err, sizeof(err)), "good label refused: %s", err);
	const char *bad[] = { "x", "=v", "k=", "1k=v", "k-y=v", "k=a,b", "k=a}", "k=a=b" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		CHECK(pusher__check_label(bad[i], err, sizeof(err)) == -EINVAL && err[0], "label '%s' accepted", bad[i]);
	struct pusher_opts b = { .url = "ftp://h", .app = "a" };
	CHECK(!pusher__new(&b, err, sizeof(err)) && strstr(err, "http://"), "ftp URL accepted");
	b.url = "http://h";
	b.app = "a b";
	CHECK(!pusher__new(&b, err, sizeof(err)) && strstr(err, "application name"), "app 'a b' accepted");
}

/* 503 first: retried after the backoff; a 400: dropped for good. */
static void test_retry(void)
{
	struct server s = { .statuses = { 503, 200, 400, 200 } };
	server_start(&s);
	char url[64], err[256];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", s.port);
	const char *labels[] = { "env=test" };
	struct pusher_opts o = { .url = url, .app = "app", .labels = labels, .nr_labels = 1, .sample_rate = 999,
				 .sample_type_config = "{\"cpu\":{}}" };
	struct pusher *p = pusher__new(&o, err, sizeof(err));
	if (!CHECK(p, "pusher__new: %s", err))
		return;
	pusher__submit(p, profile_copy(), sizeof(PROFILE), 100, 110);
	pusher__submit(p, profile_copy(), sizeof(PROFILE), 110, 120);
	pusher__submit(p, profile_copy(), sizeof(PROFILE), 120, 130);
	pusher__finish(p, 15);
	struct pusher_stats st;
	pusher__stats(p, &st);
	CHECK_EQ_U64(st.submitted, 3);
	CHECK_EQ_U64(st.sent, 2);
	CHECK_EQ_U64(st.failures, 1);
	CHECK_EQ_U64(st.rejected, 1);
	CHECK_EQ_U64(st.unsent, 0);
	CHECK_EQ_U64(st.queued, 0);
	CHECK(strstr(st.last_error, "HTTP 400") != NULL, "last error: %s", st.last_error);
	pusher__delete(p);
	/* The client has its answer before the server thread counts the
	 * request: join the thread before reading what it saw. */
	server_stop(&s);
	CHECK_EQ_INT(s.nr_req, 4);
	/* the first profile twice (503, then 200), then the others in order */
	CHECK(strstr(s.first_line[0], "from=100&until=110") && strstr(s.first_line[1], "from=100&until=110") &&
	      strstr(s.first_line[2], "from=110&until=120") && strstr(s.first_line[3], "from=120&until=130"),
	      "order: %s | %s | %s | %s", s.first_line[0], s.first_line[1], s.first_line[2], s.first_line[3]);
	for (int i = 0; i < 4; i++) {
		CHECK(!strncmp(s.first_line[i], "POST /ingest?name=app%7Benv%3Dtest%7D&from=", 43),
		      "request %d: %s", i, s.first_line[i]);
		CHECK(s.body_has_profile[i] && s.body_has_config[i], "request %d: multipart with profile and config", i);
	}
}

/* Nobody listens: the recording goes on, the queue stays bounded (the
 * oldest go), and what is left at the end is counted, not lost silently. */
static void test_no_server(void)
{
	struct server s = { 0 };
	server_start(&s);
	int port = s.port;
	server_stop(&s);	/* the port is closed now: connection refused */
	char url[64], err[256];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	struct pusher_opts o = { .url = url, .app = "app", .max_queue = 4 };
	struct pusher *p = pusher__new(&o, err, sizeof(err));
	if (!CHECK(p, "pusher__new: %s", err))
		return;
	for (int i = 0; i < 20; i++)
		pusher__submit(p, profile_copy(), sizeof(PROFILE), i, i + 1);
	struct pusher_stats st;
	pusher__stats(p, &st);
	CHECK(st.queued <= 4, "queued %zu > 4", st.queued);
	pusher__finish(p, 0.5);
	pusher__stats(p, &st);
	CHECK_EQ_U64(st.sent, 0);
	CHECK(st.failures >= 1, "failures %llu", (unsigned long long)st.failures);
	CHECK(st.dropped >= 16, "dropped %llu", (unsigned long long)st.dropped);
	CHECK_EQ_U64(st.sent + st.rejected + st.dropped + st.unsent, 20);
	CHECK(st.last_error[0], "no error said");
	pusher__delete(p);
}

int main(void)
{
	test_url();
	test_retry();
	test_no_server();
	return check_summary();
}
