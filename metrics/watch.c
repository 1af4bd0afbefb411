// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live view.  Plain ANSI/VT100 sequences rather than curses: the
 * screen is a whole redraw once a second of a few dozen short lines, so
 * curses' screen diffing buys nothing, while owning the terminal state
 * ourselves keeps the restore path short and certain (termios, cursor,
 * alternate screen), including on Ctrl-Z.  The sequences used (cursor
 * home, erase line/below, alternate screen, cursor visibility, reverse
 * video) are common to every terminal in use; TERM=dumb gets JSON.
 *
 * Signals are read from a signalfd, so the one loop sees keys, timer,
 * resize and stop requests in order and the cleanup has one path.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "lib/json.h"
#include "metrics/watch.h"

#define CSI	     "\033["
#define ENTER_SCREEN CSI "?1049h" CSI "?25l"
#define LEAVE_SCREEN CSI "?25h" CSI "?1049l"
#define HEAD_LINES   3 /* title, totals, column names */
#define FOOT_LINES   1

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * One screen line: cut to the width, erase what an older line left.
 * attr (an SGR sequence or NULL) applies to the text only.
 */
static void line(FILE *f, int cols, const char *attr, bool last,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void line(FILE *f, int cols, const char *attr, bool last,
		 const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	if (len > cols)
		len = cols;
	if (len > (int)sizeof(buf) - 1)
		len = sizeof(buf) - 1;
	if (attr)
		fputs(attr, f);
	fwrite(buf, 1, len, f);
	if (attr)
		fputs(CSI "0m", f);
	/* No newline after the bottom line: the screen would scroll. */
	fputs(last ? CSI "K" : CSI "K\n", f);
}

void watch_draw(FILE *f, const struct watch_frame *w)
{
	const struct metrics_snapshot *s = w->cur;
	char when[16], pps[16], bps[16], upps[16];
	int room, shown, i, cols = w->cols;
	time_t t = s->time_ns / 1000000000ULL;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fputs(CSI "H", f);
	line(f, cols, CSI "7m", false,
	     "classifier stats watch  every %.1fs  %s  %zu classes%s",
	     w->interval_ms / 1000.0, when, s->nr_classes,
	     s->stats_on ? "" : "  STATS OFF (classifier stats on)");
	if (w->dt_ns) {
		rates_si(w->tot.pps, pps, sizeof(pps));
		rates_si(w->tot.bps, bps, sizeof(bps));
		rates_si(w->tot.unclassified_pps, upps, sizeof(upps));
		line(f, cols, NULL, false,
		     "total %s pkt/s %s bit/s   unclassified %s pkt/s", pps,
		     bps, upps);
	} else {
		line(f, cols, NULL, false, "total - (first interval)");
	}
	line(f, cols, NULL, false, "%-10s %-20s %9s %9s %16s %18s", "CLASS",
	     "NAME", "PKT/S", "BIT/S", "PACKETS", "BYTES");
	room = w->lines - HEAD_LINES - FOOT_LINES;
	shown = (int)s->nr_classes;
	if (shown > room)
		shown = room > 0 ? room - 1 : 0;
	for (i = 0; i < shown; i++) {
		const struct rate_row *r = &w->rows[i];

		rates_si(r->pps, pps, sizeof(pps));
		rates_si(r->bps, bps, sizeof(bps));
		line(f, cols, NULL, false, "%-10s %-20s %9s %9s %16llu %18llu",
		     r->c->label, r->c->name, w->dt_ns ? pps : "-",
		     w->dt_ns ? bps : "-", (unsigned long long)r->packets,
		     (unsigned long long)r->bytes);
	}
	if (shown < (int)s->nr_classes && room > 0)
		line(f, cols, NULL, false, "... %zu more",
		     s->nr_classes - shown);
	fputs(CSI "J", f);
	line(f, cols, NULL, true,
	     "q quit  p sort by packets/s  b sort by bits/s");
}

void watch_json(FILE *f, const struct watch_frame *w)
{
	const struct metrics_snapshot *s = w->cur;
	struct json_writer *jw = jw_new(f, false);
	size_t i;

	if (!jw)
		return;
	jw_start_object(jw);
	jw_uint_field(jw, "time", s->time_ns / 1000000000ULL);
	jw_uint_field(jw, "interval_ms", (w->dt_ns + 500000) / 1000000);
	jw_bool_field(jw, "stats_enabled", s->stats_on);
	jw_name(jw, "total");
	jw_start_object(jw);
	jw_uint_field(jw, "packets_per_second", (__u64)(w->tot.pps + 0.5));
	jw_uint_field(jw, "bits_per_second", (__u64)(w->tot.bps + 0.5));
	jw_uint_field(jw, "unclassified_packets_per_second",
		      (__u64)(w->tot.unclassified_pps + 0.5));
	jw_end_object(jw);
	jw_name(jw, "classes");
	jw_start_array(jw);
	for (i = 0; i < s->nr_classes; i++) {
		const struct rate_row *r = &w->rows[i];

		jw_start_object(jw);
		jw_string_field(jw, "class", r->c->label);
		jw_string_field(jw, "name", r->c->name);
		jw_uint_field(jw, "index", r->c->idx);
		jw_uint_field(jw, "packets", r->packets);
		jw_uint_field(jw, "bytes", r->bytes);
		jw_uint_field(jw, "packets_per_second", (__u64)(r->pps + 0.5));
		jw_uint_field(jw, "bits_per_second", (__u64)(r->bps + 0.5));
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_end_object(jw);
	jw_destroy(&jw);
}

struct term {
	bool on;   /* raw mode and our screen are in effect */
	bool keys; /* stdin is a terminal we read keys from */
	struct termios saved;
	int cols, lines;
};

static int write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= w;
	}
	return 0;
}

static void term_size(struct term *t)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col || !ws.ws_row) {
		t->cols = 80;
		t->lines = 24;
		return;
	}
	t->cols = ws.ws_col;
	t->lines = ws.ws_row;
}

static int term_enter(struct term *t)
{
	struct termios raw;

	term_size(t);
	if (t->keys) {
		if (tcgetattr(STDIN_FILENO, &t->saved))
			return -errno;
		raw = t->saved;
		/* Keys one at a time, unechoed; Ctrl-C still signals. */
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw))
			return -errno;
	}
	t->on = true;
	return write_all(STDOUT_FILENO, ENTER_SCREEN, strlen(ENTER_SCREEN));
}

static void term_leave(struct term *t)
{
	if (!t->on)
		return;
	write_all(STDOUT_FILENO, LEAVE_SCREEN, strlen(LEAVE_SCREEN));
	if (t->keys)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &t->saved);
	t->on = false;
}

struct view {
	const struct watch_opts *o;
	struct term term;
	bool json;
	struct metrics_snapshot snap[2];
	int cur; /* snap[cur] is the newest read */
	unsigned long reads;
	__u64 read_at[2];
	struct rate_row *rows; /* nr_rows: grown to the classes read */
	size_t nr_rows;
	struct watch_frame frame;
};

static int show(struct view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	if (v->json) {
		watch_json(stdout, &v->frame);
		return fflush(stdout) ? -errno : 0;
	}
	v->frame.cols = v->term.cols;
	v->frame.lines = v->term.lines;
	f = open_memstream(&buf, &len);
	if (!f)
		return -errno;
	watch_draw(f, &v->frame);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	/* One write per frame: the terminal never shows half a frame. */
	err = write_all(STDOUT_FILENO, buf, len);
	free(buf);
	return err;
}

static int sample(struct view *v, const struct metrics_source *src)
{
	int next = v->reads ? !v->cur : v->cur;
	struct metrics_snapshot *prev = v->reads ? &v->snap[v->cur] : NULL;
	struct metrics_snapshot *cur = &v->snap[next];
	int err;

	err = src->read(src->ctx, cur);
	if (err)
		return err;
	if (cur->nr_classes > v->nr_rows) {
		struct rate_row *r =
			realloc(v->rows, cur->nr_classes * sizeof(*r));

		if (!r)
			return -ENOMEM;
		v->rows = r;
		v->nr_rows = cur->nr_classes;
		v->frame.rows = r;
	}
	v->read_at[next] = mono_ns();
	v->frame.dt_ns = prev ? v->read_at[next] - v->read_at[v->cur] : 0;
	rates_compute(prev, cur, v->frame.dt_ns, v->frame.sort, v->rows);
	rates_totals(v->rows, cur->nr_classes, prev, cur, v->frame.dt_ns,
		     &v->frame.tot);
	v->reads++;
	v->cur = next;
	v->frame.cur = cur;
	return 0;
}

enum step { STEP_TICK, STEP_REDRAW, STEP_QUIT };

static enum step on_key(struct view *v)
{
	char c;

	if (read(STDIN_FILENO, &c, 1) != 1)
		return STEP_QUIT; /* the terminal went away */
	switch (c) {
	case 'q':
	case 'Q':
		return STEP_QUIT;
	case 'p':
	case 'b':
		v->frame.sort = c == 'p' ? RATE_BY_PACKETS : RATE_BY_BITS;
		rates_sort(v->rows, v->frame.cur->nr_classes, v->frame.sort);
		return STEP_REDRAW;
	default:
		return STEP_TICK;
	}
}

static enum step on_signal(struct view *v, int sfd, int *err)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return STEP_TICK;
	switch (si.ssi_signo) {
	case SIGWINCH:
		term_size(&v->term);
		return v->json ? STEP_TICK : STEP_REDRAW;
	case SIGTSTP:
		/* Stop with the terminal as we found it; redraw on return. */
		term_leave(&v->term);
		raise(SIGSTOP);
		if (v->json)
			return STEP_TICK;
		*err = term_enter(&v->term);
		return *err ? STEP_QUIT : STEP_REDRAW;
	case SIGCONT:
		return STEP_TICK;
	default: /* SIGINT, SIGTERM, SIGHUP, SIGQUIT */
		return STEP_QUIT;
	}
}

/* Wait for the deadline, a key or a signal; redraws in between. */
static int wait_until(struct view *v, int sfd, __u64 deadline, bool *quit)
{
	struct pollfd pfd[2] = {{.fd = sfd, .events = POLLIN},
				{.fd = STDIN_FILENO, .events = POLLIN}};
	enum step step;
	__u64 now;
	int err = 0, n;

	for (;;) {
		now = mono_ns();
		if (now >= deadline)
			return 0;
		n = poll(pfd, v->term.keys ? 2 : 1,
			 (deadline - now + 999999) / 1000000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		step = STEP_TICK;
		if (pfd[0].revents)
			step = on_signal(v, sfd, &err);
		if (step != STEP_QUIT && v->term.keys && pfd[1].revents)
			step = on_key(v);
		if (step == STEP_QUIT) {
			*quit = true;
			return err;
		}
		if (step == STEP_REDRAW && (err = show(v)))
			return err;
	}
}

static bool plain_terminal(void)
{
	const char *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && term && *term && strcmp(term, "dumb");
}

static int view_init(struct view *v, const struct watch_opts *o)
{
	int err;

	memset(v, 0, sizeof(*v));
	v->o = o;
	v->json = o->json || !plain_terminal();
	v->term.keys = !v->json && isatty(STDIN_FILENO);
	v->frame.interval_ms = o->interval_ms ?: WATCH_INTERVAL_MS;
	v->frame.sort = RATE_BY_BITS;
	err = metrics_snapshot_init(&v->snap[0]);
	if (!err)
		err = metrics_snapshot_init(&v->snap[1]);
	return err;
}

static void view_free(struct view *v)
{
	metrics_snapshot_free(&v->snap[0]);
	metrics_snapshot_free(&v->snap[1]);
	free(v->rows);
}

static int loop(struct view *v, const struct metrics_source *src, int sfd)
{
	__u64 step = (__u64)v->frame.interval_ms * 1000000ULL, deadline;
	unsigned long shown = 0;
	bool quit = false;
	int err;

	deadline = mono_ns();
	while (!quit) {
		err = sample(v, src);
		if (err)
			return err;
		/* JSON has nothing to say before the first interval. */
		if (!v->json || v->reads > 1) {
			err = show(v);
			if (err)
				return err;
		}
		if (v->reads > 1 && v->o->count && ++shown >= v->o->count)
			return 0;
		/* Late (a slow read, a stop): skip, do not burst. */
		deadline += step;
		if (deadline < mono_ns())
			deadline = mono_ns() + step;
		err = wait_until(v, sfd, deadline, &quit);
		if (err)
			return err;
	}
	return 0;
}

int watch_run(const struct watch_opts *o, const struct metrics_source *src)
{
	static const int sigs[] = {SIGINT,   SIGTERM, SIGHUP, SIGQUIT,
				   SIGWINCH, SIGTSTP, SIGCONT};
	sigset_t mask, old;
	struct view v;
	int err, sfd = -1;
	size_t i;

	if (o->interval_ms && o->interval_ms < WATCH_MIN_INTERVAL_MS)
		return -EINVAL;
	err = view_init(&v, o);
	if (err)
		goto out;
	sigemptyset(&mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&mask, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &mask, &old)) {
		err = -errno;
		goto out;
	}
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		err = -errno;
		goto out_mask;
	}
	if (!v.json)
		err = term_enter(&v.term);
	if (!err)
		err = loop(&v, src, sfd);
	term_leave(&v.term);
	close(sfd);
out_mask:
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	view_free(&v);
	return err;
}
