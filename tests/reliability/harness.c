/*
 * harness.c: a temporary home, the real brokerd started and killed, its
 * two sockets, and its audit log read back (harness.h).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "proto/readfile.h"
#include "proto/sha256.h"

/* What rh_run_check keeps of bxctl audit verify's report. */
#define RH_VERIFY_OUT_MAX	65536

#define RH_GRANT_FMT \
	"tool = \"read_file\"\nmode = \"%s\"\nmax_taint = \"secret\"\n" \
	"result_class = \"private\"\nexpires = \"2099-01-01T00:00:00.000Z\"\n" \
	"\n[constraints]\npaths = [\"%s\"]\n"
/* The most files of one audit directory the reader takes. */
#define RH_FILES_MAX	4096

int64_t
rh_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
rh_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
}

static int
write_text(const char *path, const char *fmt, ...)
{
	va_list ap;
	FILE *fp;
	int rc;

	if ((fp = fopen(path, "w")) == NULL)
		return -1;
	va_start(ap, fmt);
	rc = vfprintf(fp, fmt, ap);
	va_end(ap);
	if (fclose(fp) != 0 || rc < 0)
		return -1;
	return 0;
}

static int
write_grant(const struct rh_home *h, const char *id, const char *mode,
    const char *path)
{
	char file[PATH_MAX];

	snprintf(file, sizeof(file), "%s/%s.toml", h->grants, id);
	return write_text(file, RH_GRANT_FMT, mode, path);
}

int
rh_home_make(struct rh_home *h, int64_t ttl_ms)
{
	const char *tmp = getenv("TMPDIR");

	memset(h, 0, sizeof(*h));
	if (tmp == NULL || *tmp == '\0' || strlen(tmp) > 40)
		tmp = "/tmp";
	/* Short, so the socket paths fit sun_path. */
	snprintf(h->dir, sizeof(h->dir), "%s/rh-XXXXXX", tmp);
	if (mkdtemp(h->dir) == NULL)
		return -1;
	snprintf(h->config, sizeof(h->config), "%s/brokerd.toml", h->dir);
	snprintf(h->grants, sizeof(h->grants), "%s/grants", h->dir);
	snprintf(h->broker, sizeof(h->broker), "%s/run/loop-broker/broker.sock",
	    h->dir);
	snprintf(h->admin, sizeof(h->admin), "%s/run/owner-broker/admin.sock",
	    h->dir);
	snprintf(h->audit, sizeof(h->audit), "%s/audit", h->dir);
	snprintf(h->errs, sizeof(h->errs), "%s/stderr", h->dir);
	if (mkdir(h->grants, 0700) == -1 ||
	    write_grant(h, "docs", "auto", "/docs") == -1 ||
	    write_grant(h, "notes", "ask", "/notes") == -1 ||
	    write_grant(h, "secret", "deny", "/secret") == -1)
		return -1;
	return rh_home_config(h, ttl_ms, "kind = \"refuse\"\n");
}

int
rh_home_config(struct rh_home *h, int64_t ttl_ms, const char *runner)
{
	return write_text(h->config, "[paths]\nhome = \"%s\"\ngrants = \"%s\"\n"
	    "\n[sockets]\nbroker = \"%s\"\nadmin = \"%s\"\n\n[approvals]\n"
	    "ttl_ms = %lld\n\n[runner]\n%s", h->dir, h->grants, h->broker,
	    h->admin, (long long)ttl_ms, runner);
}

void
rh_remove_tree(const char *path)
{
	struct dirent *e;
	char sub[PATH_MAX];
	DIR *d;

	if ((d = opendir(path)) == NULL) {
		unlink(path);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (e->d_type == DT_DIR)
			rh_remove_tree(sub);
		else
			unlink(sub);
	}
	closedir(d);
	rmdir(path);
}

void
rh_home_remove(struct rh_home *h)
{
	if (h->pid > 0)
		rh_kill(h, SIGKILL);
	if (h->dir[0] != '\0')
		rh_remove_tree(h->dir);
}

void
rh_program(const char *rel, char *out, size_t size)
{
	const char *root = getenv("BX_BUILD_ROOT");

	snprintf(out, size, "%s/%s", root != NULL ? root : "build", rel);
}

int
rh_dial(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static pid_t
spawn(const struct rh_home *h, const char *const *wrapper)
{
	char brokerd[PATH_MAX];
	const char *argv[64];
	size_t n = 0;
	pid_t pid;
	int fd;

	rh_program("src/brokerd/brokerd", brokerd, sizeof(brokerd));
	for (; wrapper != NULL && wrapper[n] != NULL && n < 58; n++)
		argv[n] = wrapper[n];
	argv[n++] = brokerd;
	argv[n++] = "serve";
	argv[n++] = "--config";
	argv[n++] = h->config;
	argv[n] = NULL;
	if ((pid = fork()) != 0)
		return pid;
	if ((fd = open(h->errs, O_WRONLY | O_CREAT | O_APPEND, 0600)) != -1)
		dup2(fd, 2);
	execvp(argv[0], (char *const *)argv);
	_exit(127);
}

static bool
serving(const char *path)
{
	int fd;

	if ((fd = rh_dial(path)) == -1)
		return false;
	close(fd);
	return true;
}

int
rh_reaped(struct rh_home *h)
{
	int status;

	if (h->pid <= 0)
		return -1;
	if (waitpid(h->pid, &status, WNOHANG) != h->pid)
		return -1;
	h->pid = h->brokerd = 0;
	h->status = status;
	return status;
}

/* The wrapper's one child, from /proc; -1 if it has none (yet). */
static pid_t
child_of(pid_t pid)
{
	char path[64];
	long child = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)pid,
	    (long)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	if (fscanf(fp, "%ld", &child) != 1)
		child = -1;
	fclose(fp);
	return (pid_t)child;
}

/* How many times a brokerd of this home said it serves. */
static size_t
servings(const struct rh_home *h)
{
	static const char said[] = "brokerd: serving on ";
	char line[8192];
	size_t n = 0;
	FILE *fp;

	if ((fp = fopen(h->errs, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		n += strncmp(line, said, sizeof(said) - 1) == 0;
	fclose(fp);
	return n;
}

/*
 * Serving means both sockets accept and this brokerd said so: a child of a
 * killed brokerd, between its fork and its exec, still holds the old
 * listening sockets for a moment.
 */
int
rh_start(struct rh_home *h, const char *const *wrapper)
{
	int64_t until = rh_now_ms() + RH_WAIT_MS;
	size_t before = servings(h);

	h->brokerd = 0;
	if ((h->pid = spawn(h, wrapper)) == -1) {
		h->pid = 0;
		return -1;
	}
	while (!serving(h->broker) || !serving(h->admin) ||
	    servings(h) == before) {
		if (rh_reaped(h) != -1 || rh_now_ms() > until)
			return -1;
		rh_sleep_ms(5);
	}
	h->brokerd = wrapper == NULL ? h->pid : child_of(h->pid);
	return h->brokerd > 0 ? 0 : -1;
}

int
rh_kill(struct rh_home *h, int sig)
{
	int status = -1;

	if (h->pid <= 0)
		return -1;
	/* Started but not yet serving: a wrapper's child, or brokerd itself. */
	if (h->brokerd <= 0 && (h->brokerd = child_of(h->pid)) <= 0)
		h->brokerd = h->pid;
	kill(h->brokerd, sig);
	while (waitpid(h->pid, &status, 0) == -1 && errno == EINTR)
		continue;
	h->pid = h->brokerd = 0;
	return status;
}

/* Whether every thread of pid has a tracer. */
static bool
all_traced(pid_t pid)
{
	char path[PATH_MAX], line[256];
	struct dirent *e;
	bool traced = true, seen = false;
	long tracer;
	DIR *d;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return false;
	while (traced && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%s/status",
		    (long)pid, e->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		tracer = 0;
		while (fgets(line, sizeof(line), fp) != NULL)
			if (strncmp(line, "TracerPid:", 10) == 0)
				tracer = strtol(line + 10, NULL, 10);
		fclose(fp);
		traced = tracer != 0;
		seen = true;
	}
	closedir(d);
	return traced && seen;
}

pid_t
rh_strace_attach(const struct rh_home *h, const char *const *args)
{
	int64_t until = rh_now_ms() + RH_WAIT_MS;
	const char *argv[64];
	char pid[32];
	size_t n = 0;
	pid_t sp;
	int fd;

	argv[n++] = "strace";
	argv[n++] = "-f";
	argv[n++] = "-qq";
	for (; args[n - 3] != NULL && n < 60; n++)
		argv[n] = args[n - 3];
	snprintf(pid, sizeof(pid), "%ld", (long)h->brokerd);
	argv[n++] = "-p";
	argv[n++] = pid;
	argv[n] = NULL;
	if ((sp = fork()) == 0) {
		if ((fd = open(h->errs, O_WRONLY | O_CREAT | O_APPEND,
		    0600)) != -1)
			dup2(fd, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	while (sp > 0 && !all_traced(h->brokerd)) {
		if (rh_now_ms() > until || waitpid(sp, NULL, WNOHANG) == sp)
			return -1;
		rh_sleep_ms(5);
	}
	return sp;
}

int
rh_strace_wait(pid_t sp)
{
	int status = -1;

	while (waitpid(sp, &status, 0) == -1 && errno == EINTR)
		continue;
	return status;
}

bool
rh_errs_contain(const struct rh_home *h, const char *text)
{
	static char buf[1 << 20];
	size_t n;
	FILE *fp;

	if ((fp = fopen(h->errs, "r")) == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

int
rh_call_start(struct rh_call *c, const char *socket, const char *session,
    const char *call, const char *args)
{
	return rh_call_tool(c, socket, session, call, "read_file", args);
}

int
rh_call_tool(struct rh_call *c, const char *socket, const char *session,
    const char *call, const char *tool, const char *args)
{
	struct bx_msg *req;
	int rc;

	c->c_fd = -1;
	bx_frame_reader_init(&c->c_reader, -1);
	if ((req = bx_msg_tool_request(session, call, tool, args)) == NULL)
		return -1;
	if ((c->c_fd = rh_dial(socket)) == -1) {
		bx_msg_free(req);
		return -1;
	}
	bx_frame_reader_init(&c->c_reader, c->c_fd);
	rc = bx_msg_send(c->c_fd, req, RH_WAIT_MS, NULL);
	bx_msg_free(req);
	return rc;
}

static void
answer_from(const struct bx_msg *m, struct rh_answer *a, char **content)
{
	const struct bx_tool_response *r = &m->tool_response;

	if (m->kind == BX_MSG_ERROR) {
		a->a_got = RH_ERROR;
		a->a_code = m->error.code;
		snprintf(a->a_message, sizeof(a->a_message), "%s",
		    m->error.message);
		return;
	}
	if (m->kind != BX_MSG_TOOL_RESPONSE)
		return;
	if (r->status == BX_STATUS_PENDING_APPROVAL) {
		a->a_got = RH_PENDING;
		a->a_approval = r->approval;
		return;
	}
	a->a_got = RH_FINAL;
	a->a_status = r->status;
	a->a_reason = r->reason;
	a->a_truncated = r->truncated;
	a->a_class = r->class;
	if (r->status == BX_STATUS_FAILED)
		snprintf(a->a_message, sizeof(a->a_message), "%s", r->message);
	if (content != NULL && (r->status == BX_STATUS_RESULT ||
	    r->status == BX_STATUS_FAILED))
		*content = strdup(r->status == BX_STATUS_RESULT ? r->content :
		    r->message);
}

enum rh_got
rh_call_next(struct rh_call *c, int timeout_ms, struct rh_answer *a)
{
	return rh_call_next_full(c, timeout_ms, a, NULL);
}

enum rh_got
rh_call_next_full(struct rh_call *c, int timeout_ms, struct rh_answer *a,
    char **content)
{
	struct bx_msg *m;
	const char *line;
	size_t len;

	memset(a, 0, sizeof(*a));
again:
	if (c->c_fd == -1 || bx_frame_read(&c->c_reader, timeout_ms, &line,
	    &len, NULL) != BX_FRAME_OK)
		return RH_NOTHING;
	if (bx_msg_decode(line, len, &m, NULL) == -1)
		return RH_NOTHING;
	/* approved only says the call runs now: its answer follows. */
	if (m->kind == BX_MSG_TOOL_RESPONSE &&
	    m->tool_response.status == BX_STATUS_APPROVED) {
		bx_msg_free(m);
		goto again;
	}
	answer_from(m, a, content);
	bx_msg_free(m);
	return a->a_got;
}

void
rh_call_close(struct rh_call *c)
{
	bx_frame_reader_free(&c->c_reader);
	if (c->c_fd != -1)
		close(c->c_fd);
	c->c_fd = -1;
}

int
rh_admin(const char *socket, struct bx_msg *req, struct bx_msg **ret,
    int timeout_ms)
{
	struct bx_frame_reader r;
	const char *line;
	size_t len;
	int fd, rc = -1;

	*ret = NULL;
	if (req == NULL)
		return -1;
	if ((fd = rh_dial(socket)) == -1) {
		bx_msg_free(req);
		return -1;
	}
	bx_frame_reader_init(&r, fd);
	if (bx_msg_send(fd, req, timeout_ms, NULL) == 0 &&
	    bx_frame_read(&r, timeout_ms, &line, &len, NULL) == BX_FRAME_OK &&
	    bx_msg_decode(line, len, ret, NULL) == 0)
		rc = 0;
	bx_frame_reader_free(&r);
	close(fd);
	bx_msg_free(req);
	return rc;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
push(struct rh_log *l, size_t *cap, const struct bx_audit_record *rec)
{
	struct bx_audit_record *n;

	if (l->l_n == *cap) {
		*cap = *cap == 0 ? 1024 : *cap * 2;
		if ((n = realloc(l->l_recs, *cap * sizeof(*n))) == NULL)
			return -1;
		l->l_recs = n;
	}
	l->l_recs[l->l_n++] = *rec;
	return 0;
}

/*
 * A Recovery that describes the line before it: that line was never
 * acknowledged, so it is not a record even if it decodes.
 */
static bool
describes(const struct bx_audit_record *rec, const char *prev, size_t plen)
{
	struct bx_hash h;

	if (prev == NULL || rec->event.recovery.torn_bytes != plen ||
	    bx_sha256(prev, plen, &h, NULL) == -1)
		return false;
	return bx_hash_equal(&h, &rec->event.recovery.torn_sha256);
}

static int
read_lines(struct rh_log *l, size_t *cap, const char *buf, size_t len)
{
	struct bx_audit_record rec;
	const char *p = buf, *nl, *prev = NULL;
	size_t plen = 0;
	bool prev_decoded = false;

	while (p < buf + len) {
		if ((nl = memchr(p, '\n', (size_t)(buf + len - p))) == NULL)
			nl = buf + len;
		if (bx_audit_record_decode(p, (size_t)(nl - p), &rec,
		    NULL) == -1) {
			l->l_bad++;
			prev_decoded = false;
		} else {
			if (rec.event.type == BX_AUDIT_RECOVERY) {
				l->l_recoveries++;
				if (prev_decoded && describes(&rec, prev, plen))
					bx_audit_record_clear(
					    &l->l_recs[--l->l_n]);
			}
			if (push(l, cap, &rec) == -1)
				return -1;
			prev_decoded = true;
		}
		prev = p;
		plen = (size_t)(nl - p);
		p = nl + 1;
	}
	return 0;
}

int
rh_log_read(const char *home, struct rh_log *l)
{
	char dir[PATH_MAX], path[PATH_MAX], *names[RH_FILES_MAX], *buf;
	struct bx_error err;
	struct dirent *e;
	size_t n = 0, i, cap = 0, len;
	DIR *d;
	int rc = 0;

	memset(l, 0, sizeof(*l));
	snprintf(dir, sizeof(dir), "%s/audit", home);
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)) != NULL && n < RH_FILES_MAX) {
		len = strlen(e->d_name);
		if (len > 6 && strcmp(e->d_name + len - 6, ".jsonl") == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (rc == 0 && bx_readfile(path, 0, &buf, &len, NULL,
		    &err) == 0) {
			rc = read_lines(l, &cap, buf, len);
			free(buf);
		} else
			rc = -1;
		free(names[i]);
	}
	return rc;
}

bool
rh_log_torn(const char *home)
{
	char dir[PATH_MAX], path[PATH_MAX], newest[NAME_MAX + 1] = "", c = '\n';
	struct dirent *e;
	size_t len;
	off_t end;
	DIR *d;
	int fd;

	snprintf(dir, sizeof(dir), "%s/audit", home);
	if ((d = opendir(dir)) == NULL)
		return false;
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (e->d_name[0] != '.' && len > 6 &&
		    strcmp(e->d_name + len - 6, ".jsonl") == 0 &&
		    strcmp(e->d_name, newest) > 0)
			snprintf(newest, sizeof(newest), "%s", e->d_name);
	}
	closedir(d);
	snprintf(path, sizeof(path), "%s/%s", dir, newest);
	if (newest[0] == '\0' || (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	if ((end = lseek(fd, 0, SEEK_END)) > 0 && pread(fd, &c, 1, end - 1) != 1)
		c = '\n';
	close(fd);
	return c != '\n';
}

void
rh_log_free(struct rh_log *l)
{
	size_t i;

	for (i = 0; i < l->l_n; i++)
		bx_audit_record_clear(&l->l_recs[i]);
	free(l->l_recs);
	memset(l, 0, sizeof(*l));
}

/* The session and call of a Decision, Approval or Result event. */
static bool
names_call(const struct bx_audit_record *r, const char *session,
    const char *call)
{
	const char *s, *c;

	switch (r->event.type) {
	case BX_AUDIT_DECISION:
		s = r->event.decision.session;
		c = r->event.decision.call;
		break;
	case BX_AUDIT_APPROVAL:
		s = r->event.approval.session;
		c = r->event.approval.call;
		break;
	case BX_AUDIT_RESULT:
		s = r->event.result.session;
		c = r->event.result.call;
		break;
	default:
		return false;
	}
	return strcmp(s, session) == 0 && strcmp(c, call) == 0;
}

const struct bx_audit_record *
rh_log_find(const struct rh_log *l, enum bx_event_type type,
    const char *session, const char *call)
{
	size_t i;

	for (i = l->l_n; i-- > 0;)
		if (l->l_recs[i].event.type == type &&
		    names_call(&l->l_recs[i], session, call))
			return &l->l_recs[i];
	return NULL;
}

const struct bx_audit_record *
rh_log_seq(const struct rh_log *l, uint64_t seq)
{
	if (seq < l->l_n && l->l_recs[seq].seq == seq)
		return &l->l_recs[seq];
	return NULL;
}

static int
fail(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

/* Whether the Approval at or before index i for decision d let it run. */
static bool
approved_before(const struct rh_log *l, size_t i, uint64_t d)
{
	const struct bx_ev_approval *a;

	while (i-- > d) {
		if (l->l_recs[i].event.type != BX_AUDIT_APPROVAL)
			continue;
		a = &l->l_recs[i].event.approval;
		if (a->decision == d)
			return a->answer == BX_ANSWER_APPROVED &&
			    a->outcome.kind != BX_OUTCOME_DENIED;
	}
	return false;
}

/* An Approval or Result at index i names a Decision d of its own call. */
static int
check_link(const struct rh_log *l, size_t i, uint64_t d, char *why,
    size_t size)
{
	const struct bx_audit_record *r = &l->l_recs[i], *dr;

	if (d >= i || (dr = rh_log_seq(l, d)) == NULL ||
	    dr->event.type != BX_AUDIT_DECISION)
		return fail(why, size, "seq %zu names decision %llu, which is "
		    "not an earlier Decision", i, (unsigned long long)d);
	if (!names_call(r, dr->event.decision.session,
	    dr->event.decision.call))
		return fail(why, size, "seq %zu names decision %llu of "
		    "another call", i, (unsigned long long)d);
	return 0;
}

int
rh_log_check(const struct rh_log *l, char *why, size_t size)
{
	const struct bx_audit_record *r, *dr;
	unsigned char *ran;
	size_t i;
	int rc = 0;

	if ((ran = calloc(l->l_n + 1, 1)) == NULL)
		return fail(why, size, "out of memory");
	for (i = 0; i < l->l_n && rc == 0; i++) {
		r = &l->l_recs[i];
		if (r->seq != i) {
			rc = fail(why, size, "record %zu has seq %llu: a gap "
			    "or a repeat", i, (unsigned long long)r->seq);
			break;
		}
		if (r->event.type == BX_AUDIT_APPROVAL) {
			rc = check_link(l, i, r->event.approval.decision, why,
			    size);
			dr = rc == 0 ? rh_log_seq(l,
			    r->event.approval.decision) : NULL;
			if (dr != NULL && dr->event.decision.outcome.kind !=
			    BX_OUTCOME_ASK)
				rc = fail(why, size, "Approval %zu for a "
				    "decision that was not ask", i);
		}
		if (r->event.type != BX_AUDIT_RESULT || rc != 0)
			continue;
		if ((rc = check_link(l, i, r->event.result.decision, why,
		    size)) != 0)
			break;
		dr = rh_log_seq(l, r->event.result.decision);
		if (dr->event.decision.outcome.kind == BX_OUTCOME_DENIED ||
		    (dr->event.decision.outcome.kind == BX_OUTCOME_ASK &&
		    !approved_before(l, i, dr->seq)))
			rc = fail(why, size, "Result %zu: the call ran without "
			    "a record that lets it run", i);
		else if (ran[dr->seq]++ != 0)
			rc = fail(why, size, "Result %zu: decision %llu ran "
			    "twice", i, (unsigned long long)dr->seq);
	}
	free(ran);
	return rc;
}

/* The final answer of a call that was asked: its Approval says the same. */
static int
check_final(const struct rh_log *l, const struct rh_seen *s, char *why,
    size_t size)
{
	const struct bx_audit_record *d, *a, *res;
	const struct bx_outcome *out;

	d = rh_log_find(l, BX_AUDIT_DECISION, s->s_session, s->s_call);
	a = rh_log_find(l, BX_AUDIT_APPROVAL, s->s_session, s->s_call);
	res = rh_log_find(l, BX_AUDIT_RESULT, s->s_session, s->s_call);
	if (s->s_status == BX_STATUS_DENIED &&
	    s->s_reason == BX_DENY_AUDIT_UNAVAILABLE)
		return res == NULL ? 0 : fail(why, size, "%s: denied "
		    "audit_unavailable, yet it has a Result", s->s_call);
	if (d == NULL)
		return fail(why, size, "%s: answered, no Decision on disk",
		    s->s_call);
	if (s->s_pending && a == NULL)
		return fail(why, size, "%s: answered after approval, no "
		    "Approval on disk", s->s_call);
	if (s->s_status == BX_STATUS_DENIED) {
		out = s->s_pending ? &a->event.approval.outcome :
		    &d->event.decision.outcome;
		if (out->kind != BX_OUTCOME_DENIED || out->reason != s->s_reason)
			return fail(why, size, "%s: denied %s, the record "
			    "says otherwise", s->s_call,
			    bx_deny_name(s->s_reason));
		return res == NULL ? 0 : fail(why, size, "%s: denied, yet "
		    "it has a Result", s->s_call);
	}
	/* The run happened but could not be recorded: its Result, if any,
	 * says failed, and the content was not sent. */
	if (s->s_unrecorded)
		return res == NULL || res->event.result.status ==
		    BX_RESULT_STATUS_FAILED ? 0 : fail(why, size, "%s: unrecorded, "
		    "yet its Result says result", s->s_call);
	if (res == NULL)
		return fail(why, size, "%s: answered %s, no Result on disk",
		    s->s_call, bx_status_name(s->s_status));
	if ((res->event.result.status == BX_RESULT_STATUS_RESULT) !=
	    (s->s_status == BX_STATUS_RESULT))
		return fail(why, size, "%s: the Result's status is not the "
		    "answer's", s->s_call);
	return 0;
}

int
rh_answers_check(const struct rh_log *l, const struct rh_seen *seen,
    size_t n, char *why, size_t size)
{
	const struct bx_audit_record *r, *a;
	const struct rh_seen *s;
	size_t i;

	for (i = 0; i < n; i++) {
		s = &seen[i];
		if (s->s_pending) {
			r = rh_log_seq(l, s->s_approval);
			if (r == NULL || r->event.type != BX_AUDIT_DECISION ||
			    !names_call(r, s->s_session, s->s_call) ||
			    r->event.decision.outcome.kind != BX_OUTCOME_ASK)
				return fail(why, size, "%s: pending approval "
				    "%llu, no ask Decision with that seq",
				    s->s_call,
				    (unsigned long long)s->s_approval);
		}
		if (s->s_approved && s->s_approve_outcome.kind ==
		    BX_OUTCOME_DENIED && s->s_approve_outcome.reason ==
		    BX_DENY_AUDIT_UNAVAILABLE) {
			if (rh_log_find(l, BX_AUDIT_RESULT, s->s_session,
			    s->s_call) != NULL)
				return fail(why, size, "%s: approved, answered "
				    "audit_unavailable, yet it ran", s->s_call);
		} else if (s->s_approved || s->s_refused) {
			a = rh_log_find(l, BX_AUDIT_APPROVAL, s->s_session,
			    s->s_call);
			if (a == NULL || a->event.approval.decision !=
			    s->s_approval || (s->s_refused &&
			    a->event.approval.answer != BX_ANSWER_REFUSED))
				return fail(why, size, "%s: the owner's answer "
				    "was taken, no Approval on disk",
				    s->s_call);
			if (s->s_approved && (a->event.approval.outcome.kind !=
			    s->s_approve_outcome.kind ||
			    (s->s_approve_outcome.kind == BX_OUTCOME_DENIED &&
			    a->event.approval.outcome.reason !=
			    s->s_approve_outcome.reason)))
				return fail(why, size, "%s: approve answered "
				    "another outcome than its Approval's",
				    s->s_call);
		}
		if (s->s_final && check_final(l, s, why, size) == -1)
			return -1;
	}
	return 0;
}

int
rh_verify(const char *home, char *out, size_t size)
{
	char bxctl[PATH_MAX], drop[4096];
	int pfd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	rh_program("src/bxctl/bxctl", bxctl, sizeof(bxctl));
	if (pipe2(pfd, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == 0) {
		dup2(pfd[1], 1);
		execl(bxctl, bxctl, "audit", "verify", "--home", home,
		    (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	/* Past size, the rest is read and dropped, so bxctl never sees EPIPE. */
	while (pid > 0) {
		if (len < size - 1)
			n = read(pfd[0], out + len, size - 1 - len);
		else
			n = read(pfd[0], drop, sizeof(drop));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < size - 1)
			len += (size_t)n;
	}
	out[len] = '\0';
	close(pfd[0]);
	if (pid == -1)
		return -1;
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		continue;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int
rh_run_check(const char *home, const struct rh_seen *const *lists,
    const size_t *counts, size_t n, char *why, size_t size)
{
	struct rh_log log;
	char *out;
	size_t i;
	int rc;

	if ((out = malloc(RH_VERIFY_OUT_MAX)) == NULL) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	rc = rh_verify(home, out, RH_VERIFY_OUT_MAX);
	if (rc != 0 || strncmp(out, "audit: ok", 9) != 0) {
		snprintf(why, size, "bxctl audit verify exited %d: %s", rc, out);
		free(out);
		return -1;
	}
	free(out);
	if (rh_log_read(home, &log) == -1) {
		snprintf(why, size, "%s: the audit log cannot be read", home);
		return -1;
	}
	rc = rh_log_check(&log, why, size);
	for (i = 0; rc == 0 && i < n; i++)
		rc = rh_answers_check(&log, lists[i], counts[i], why, size);
	rh_log_free(&log);
	return rc;
}

size_t
rh_client_loop(atomic_bool *stop, struct rh_seen *seen, size_t max,
    bool (*one_call)(void *, struct rh_seen *, unsigned), void *arg)
{
	size_t kept = 0;
	unsigned n = 0;

	while (!atomic_load(stop) && kept < max) {
		if (one_call(arg, &seen[kept], n++))
			kept++;
		else
			rh_sleep_ms(1);
	}
	return kept;
}

pid_t
rh_process_with(const char *mark, pid_t skip)
{
	char path[64], buf[8192];
	struct dirent *e;
	pid_t pid, found = 0;
	ssize_t n, i;
	DIR *d;
	int fd;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while (found == 0 && (e = readdir(d)) != NULL) {
		pid = (pid_t)atoi(e->d_name);
		if (pid <= 0 || pid == getpid() || pid == skip)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		for (i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n > 0 ? n : 0] = '\0';
		if (strstr(buf, mark) != NULL)
			found = pid;
	}
	closedir(d);
	return found;
}

bool
rh_await_process(const char *mark, bool want, int ms)
{
	int64_t until = rh_now_ms() + ms;

	while ((rh_process_with(mark, 0) != 0) != want && rh_now_ms() < until)
		rh_sleep_ms(50);
	return (rh_process_with(mark, 0) != 0) == want;
}

uint64_t
rh_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

long
rh_vm_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t flen = strlen(field);
	long kib = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, field, flen) == 0 && line[flen] == ':')
			kib = strtol(line + flen + 1, NULL, 10);
	fclose(fp);
	return kib;
}
