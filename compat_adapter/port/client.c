/* The compiled shim client: what a ported entry runs when `compat-adapter port --fast-client` built it.
 *
 * The same call as compat_adapter/port/client.py, without starting Python: the target's stdin, the
 * folder and the environment go to the warm shim server on its Unix socket (the same folder and
 * name the Python client computes, so both reach the same server), and the server's answer is
 * written back. The server may ask the client to run a hook process on its way (an "R" frame: the
 * program, its folder, its environment, its stdin, its limits): a fork and exec from this small
 * process costs what the target's own spawn of a native hook costs, where a spawn from the server's
 * Python costs about twice that. The client owns what it starts as the hook launcher does: the
 * hook's own session, every orphan of it reparented here (a child subreaper), its group and every
 * descendant killed at the timeout or once the hook is done, and the hook killed with the client
 * (PDEATHSIG) when the target CLI kills the client. A run that is the call's only one comes with
 * the server's forecast of the call's answer should it exit 0 silently: so ending, the client
 * answers at once, without waiting for the server to read the outcome. When no server answers,
 * the call is handed, stdin and all, to the Python client (PYTHON -m compat_adapter shim ...),
 * which runs it and starts a server for the next calls.
 *
 * Built with: cc -O2 -DPKGDIR='"…/compat_adapter/port"' -DPYTHON='"…/python"' client.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct { char *p; size_t n, cap; } buf;

static void put(buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) _exit(111);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* A JSON string of the bytes of s (control characters escaped; other bytes as they are). */
static void put_json(buf *b, const char *s) {
    put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') { esc[0] = '\\'; esc[1] = (char)c; put(b, esc, 2); }
        else if (c < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", c); put(b, esc, 6); }
        else put(b, (const char *)&c, 1);
    }
    put(b, "\"", 1);
}

static void read_all(int fd, buf *b) {
    char chunk[65536];
    ssize_t got;
    while ((got = read(fd, chunk, sizeof chunk)) != 0) {
        if (got < 0) { if (errno == EINTR) continue; break; }
        put(b, chunk, (size_t)got);
    }
}

static uint32_t crc32_of(const char *s) {
    uint32_t crc = 0xFFFFFFFFu;
    for (; *s; s++) {
        crc ^= (unsigned char)*s;
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

/* The server's socket, as compat_adapter.port.client.server_path computes it; 0 when its folder
 * is not this user's private one. */
static int server_path(char *out, size_t size) {
    const char *base = getenv("XDG_RUNTIME_DIR");
    if (!base || !*base) base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char stamp[512] = "";
    /* The same files as client.py's _KEYED, in the same order. */
    const char *names[] = {"shim.py", "server.py", "callerruns.py", "client.c"};
    for (int i = 0; i < 4; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", PKGDIR, names[i]);
        if (stat(path, &st) != 0) return 0;
        char part[64];
        snprintf(part, sizeof part, "%lld", (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
        strncat(stamp, part, sizeof stamp - strlen(stamp) - 1);
    }
    char keyed[4096 + 512];
    snprintf(keyed, sizeof keyed, "%s:%s", PKGDIR, stamp);
    char folder[4096];
    snprintf(folder, sizeof folder, "%s/compat-adapter-shim-%u", base, (unsigned)getuid());
    struct stat st;
    if (lstat(folder, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) return 0;
    return snprintf(out, size, "%s/%08x.sock", folder, crc32_of(keyed)) < (int)size;
}

/* The server's frames, read through a buffer: a header line, then as many bytes as it names. */
typedef struct { int fd; size_t at, n; char b[65536]; } reader;

static int fill(reader *r) {
    if (r->at < r->n) return 1;
    ssize_t got;
    do got = read(r->fd, r->b, sizeof r->b); while (got < 0 && errno == EINTR);
    if (got <= 0) return 0;
    r->at = 0;
    r->n = (size_t)got;
    return 1;
}

static int read_line(reader *r, char *line, size_t size) {
    for (size_t k = 0; k + 1 < size; k++) {
        if (!fill(r)) return 0;
        char c = r->b[r->at++];
        if (c == '\n') { line[k] = 0; return 1; }
        line[k] = c;
    }
    return 0;
}

static int read_exact(reader *r, char *out, size_t n) {
    while (n) {
        if (!fill(r)) return 0;
        size_t take = r->n - r->at < n ? r->n - r->at : n;
        memcpy(out, r->b + r->at, take);
        r->at += take;
        out += take;
        n -= take;
    }
    return 1;
}

static int write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) { if (errno == EINTR) continue; return 0; }
        p += w;
        n -= (size_t)w;
    }
    return 1;
}

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* One output stream of a hook: the first `max` bytes kept, the rest read and dropped (a hook
 * blocked on a full pipe would never exit). */
typedef struct { int fd; size_t max; int dropped; buf data; } capture;

static void drain(capture *c) {
    char chunk[65536];
    ssize_t got = read(c->fd, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (got <= 0) { close(c->fd); c->fd = -1; return; }
    size_t room = c->max > c->data.n ? c->max - c->data.n : 0;
    size_t keep = (size_t)got < room ? (size_t)got : room;
    if (keep) put(&c->data, chunk, keep);
    if ((size_t)got > room) c->dropped = 1;
}

/* Everything the hook left: its group, then every process reparented to us (we are the child
 * subreaper, so an orphan of the hook, in whatever session, comes here), killed and reaped, round
 * after round, until no child is left. Only the pids we killed are waited for: an orphan arriving
 * meanwhile is the next round's. */
static void end_the_rest(pid_t group) {
    kill(-group, SIGKILL);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    for (int round = 0; round < 10000; round++) {
        FILE *f = fopen(path, "r");
        if (!f) return;
        pid_t pids[1024];
        int n = 0;
        long pid;
        while (n < 1024 && fscanf(f, "%ld", &pid) == 1) pids[n++] = (pid_t)pid;
        fclose(f);
        if (!n) return;
        for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
        for (int i = 0; i < n; i++) while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR) {}
    }
}

/* A signal that ends the client (the target CLI giving up on the call) while a hook runs: the hook
 * and all it started are killed first, then the client ends by that signal. */
static volatile sig_atomic_t ending;

static void on_end(int sig) { ending = sig; }

/* The server's forecast of the call's answer, should the run under way exit 0 and print nothing
 * (compat_adapter/port/callerruns.py). */
typedef struct { int have, code; size_t out_n, err_n; char *body; } forecast;

/* One frame the server sent after a run's own: a forecast ("A <exit> <out> <err>\n" and the
 * texts), kept, and 1; "K" (the run is no longer wanted), the server gone, or anything else: 0. */
static int heard(reader *r, forecast *told) {
    if (!fill(r) || r->b[r->at++] != 'A') return 0;
    char line[128];
    int code;
    size_t out_n, err_n;
    if (!read_line(r, line, sizeof line) || sscanf(line, " %d %zu %zu", &code, &out_n, &err_n) != 3) return 0;
    char *body = malloc(out_n + err_n + 1);
    if (!body) _exit(111);
    if (!read_exact(r, body, out_n + err_n)) { free(body); return 0; }
    free(told->body);
    *told = (forecast){.have = 1, .code = code, .out_n = out_n, .err_n = err_n, .body = body};
    return 1;
}

/* One "R" frame: run the program it names and send back what it did:
 * "<x|s|t|a> <code> <dropped> <out bytes> <err bytes>\n" then the two texts (x: exit code, s: the
 * signal that ended it, t: stopped at its timeout, code then the signal or exit status it ended
 * with; a: exited 0 silently and answered from `told`, the forecast that came with it). The header: "R <blob> <args> <env> <stdin> <timeout ms> <grace ms> <max bytes>"; the blob
 * holds the folder, the arguments and the environment, each ended by a NUL; <stdin> -1 is none. */
static int run_frame(int sock, reader *r, const char *line, forecast *told) {
    size_t blob_n, nargs, nenv, max_b;
    long long in_n, timeout_ms, grace_ms;
    if (sscanf(line, "R %zu %zu %zu %lld %lld %lld %zu", &blob_n, &nargs, &nenv, &in_n, &timeout_ms, &grace_ms,
               &max_b) != 7 || nargs == 0) return 0;
    char *blob = malloc(blob_n + 1), *in = malloc(in_n > 0 ? (size_t)in_n : 1);
    char **args = calloc(nargs + 1, sizeof *args), **envp = calloc(nenv + 1, sizeof *envp);
    if (!blob || !in || !args || !envp) _exit(111);
    if (!read_exact(r, blob, blob_n) || (in_n > 0 && !read_exact(r, in, (size_t)in_n))) return 0;
    blob[blob_n] = 0;
    char *p = blob, *cwd = p, *endb = blob + blob_n;
    p += strlen(p) + 1;
    for (size_t i = 0; i < nargs + nenv; i++) {
        if (p >= endb) return 0;
        if (i < nargs) args[i] = p; else envp[i - nargs] = p;
        p += strlen(p) + 1;
    }
    int pin[2] = {-1, -1}, pout[2], perr[2];
    if ((in_n >= 0 && pipe2(pin, O_CLOEXEC) != 0) || pipe2(pout, O_CLOEXEC) != 0 || pipe2(perr, O_CLOEXEC) != 0) return 0;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        setsid();  /* the hook's own session and group, as the hook launcher gives it */
        prctl(PR_SET_PDEATHSIG, SIGKILL);  /* the target CLI killed the client: the hook goes too */
        if (getppid() != parent) _exit(127);
        signal(SIGPIPE, SIG_DFL);  /* we ignore it, and SIG_IGN would survive exec */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (chdir(cwd) != 0) _exit(127);
        int devnull = in_n < 0 ? open("/dev/null", O_RDONLY) : pin[0];
        if (dup2(devnull, 0) < 0 || dup2(pout[1], 1) < 0 || dup2(perr[1], 2) < 0) _exit(127);
        execve(args[0], args, envp);
        _exit(127);  /* as a shell that cannot exec reports it, and as the hook launcher does */
    }
    /* The hook's pid, first: a server whose caller is gone (killed outright, no handler runs)
     * kills the hook's group with it. */
    char said[32];
    int sn = snprintf(said, sizeof said, "P %d\n", (int)pid);
    if (!write_all(sock, said, (size_t)sn)) { kill(-pid, SIGKILL); end_the_rest(pid); return 0; }
    struct sigaction end_action = {.sa_handler = on_end}, before[3];
    const int enders[3] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) sigaction(enders[i], &end_action, &before[i]);
    close(pout[1]);
    close(perr[1]);
    int in_fd = -1;
    if (in_n >= 0) {
        close(pin[0]);
        in_fd = pin[1];
        fcntl(in_fd, F_SETFL, O_NONBLOCK);
        if (in_n == 0) { close(in_fd); in_fd = -1; }
    }
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    capture out = {.fd = pout[0], .max = max_b}, err = {.fd = perr[0], .max = max_b};
    size_t fed = 0;
    int status = 0, exited = 0, timed_out = 0, stopped = 0;
    long long deadline = now_ms() + timeout_ms, killed_at = 0, drain_end = 0;
    for (;;) {
        long long now = now_ms();
        if (ending && !exited && !killed_at) {
            kill(-pid, SIGKILL);
            killed_at = now;
        }
        if (!exited && !timed_out && now >= deadline) {
            timed_out = 1;
            kill(-pid, SIGTERM);
            deadline = now + grace_ms;
        } else if (!exited && timed_out && !killed_at && now >= deadline) {
            kill(-pid, SIGKILL);
            killed_at = now;
        }
        if (!exited && (pidfd < 0 || killed_at)) {
            pid_t got = waitpid(pid, &status, killed_at ? 0 : WNOHANG);
            if (got == pid) exited = 1;
        }
        if (exited && !drain_end) {
            if (in_fd >= 0) { close(in_fd); in_fd = -1; }
            end_the_rest(pid);
            drain_end = now_ms() + grace_ms;
        }
        if (exited && ((out.fd < 0 && err.fd < 0) || now_ms() >= drain_end)) break;
        /* Frames the server sent with the run's own, already read: heard before waiting. */
        while (!stopped && r->at < r->n && !heard(r, told)) {
            stopped = 1;
            if (!exited) {
                kill(-pid, SIGKILL);
                killed_at = now_ms();
            }
        }
        struct pollfd fds[5];
        int k = 0, i_in = -1, i_out = -1, i_err = -1, i_pid = -1, i_sock = -1;
        if (in_fd >= 0) { i_in = k; fds[k++] = (struct pollfd){.fd = in_fd, .events = POLLOUT}; }
        if (out.fd >= 0) { i_out = k; fds[k++] = (struct pollfd){.fd = out.fd, .events = POLLIN}; }
        if (err.fd >= 0) { i_err = k; fds[k++] = (struct pollfd){.fd = err.fd, .events = POLLIN}; }
        if (!exited && pidfd >= 0) { i_pid = k; fds[k++] = (struct pollfd){.fd = pidfd, .events = POLLIN}; }
        if (!stopped && r->at >= r->n) { i_sock = k; fds[k++] = (struct pollfd){.fd = sock, .events = POLLIN}; }
        long long until = exited ? drain_end : deadline;
        long long wait = until - now_ms();
        if (!exited && pidfd < 0 && wait > 5) wait = 5;  /* no pidfd: look at the child now and then */
        if (wait < 0) wait = 0;
        if (poll(fds, (nfds_t)k, (int)wait) < 0 && errno != EINTR) break;
        if (i_in >= 0 && fds[i_in].revents) {
            ssize_t w = write(in_fd, in + fed, (size_t)in_n - fed);
            if (w > 0) fed += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || fed == (size_t)in_n) { close(in_fd); in_fd = -1; }
        }
        if (i_out >= 0 && fds[i_out].revents) drain(&out);
        if (i_err >= 0 && fds[i_err].revents) drain(&err);
        if (i_pid >= 0 && fds[i_pid].revents && waitpid(pid, &status, 0) == pid) exited = 1;
        if (i_sock >= 0 && fds[i_sock].revents && !heard(r, told)) {
            /* The server no longer wants this run ("K": its call was cancelled) or is gone: the
             * hook is killed now, as the hook launcher kills a cancelled run. */
            stopped = 1;
            if (!exited) {
                kill(-pid, SIGKILL);
                killed_at = now_ms();
            }
        }
    }
    if (pidfd >= 0) close(pidfd);
    if (out.fd >= 0) close(out.fd);
    if (err.fd >= 0) close(err.fd);
    if (!drain_end) end_the_rest(pid);
    for (int i = 0; i < 3; i++) sigaction(enders[i], &before[i], NULL);
    if (ending) raise(ending);
    char kind = timed_out ? 't' : WIFSIGNALED(status) ? 's' : 'x';
    /* A run stopped at its timeout: its status, a signal as its negative (as Python reads one). */
    int code = WIFSIGNALED(status) ? (timed_out ? -WTERMSIG(status) : WTERMSIG(status)) : WEXITSTATUS(status);
    /* The forecast holds only for the run it was made for ending as it assumed: then this client
     * answers the target from it, and says so ("a": exited 0, silent, answered), so that the
     * server ends the call at once instead of answering it again while the target goes on. */
    if (!(kind == 'x' && code == 0 && !out.dropped && !err.dropped && out.data.n == 0 && err.data.n == 0))
        told->have = 0;
    if (told->have) kind = 'a';
    char head[128];
    int hn = snprintf(head, sizeof head, "%c %d %d %zu %zu\n", kind, code, out.dropped || err.dropped, out.data.n,
                      err.data.n);
    int ok = write_all(sock, head, (size_t)hn) && write_all(sock, out.data.p, out.data.n) &&
             write_all(sock, err.data.p, err.data.n);
    free(out.data.p);
    free(err.data.p);
    free(blob);
    free(in);
    free(args);
    free(envp);
    return ok;
}

/* The call, answered by the server: its "R" frames run here, one after another, then its reply
 * "= <exit> <stdout bytes> <stderr bytes>\n" and the two texts. -1: no answer (no server, or it
 * failed): the caller runs the call itself. */
static int ask_server(const char *path, const char *target, const char *hooks, buf *in) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) { close(fd); return -1; }
    strcpy(addr.sun_path, path);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) { close(fd); return -1; }
    buf head = {0};
    char cwd[4096], count[32];
    if (!getcwd(cwd, sizeof cwd)) { close(fd); return -1; }
    snprintf(count, sizeof count, "%zu", in->n);
    puts_(&head, "{\"runs\": true, \"stdin\": "); puts_(&head, count);
    puts_(&head, ", \"to\": "); put_json(&head, target);
    puts_(&head, ", \"hooks\": "); put_json(&head, hooks);
    puts_(&head, ", \"cwd\": "); put_json(&head, cwd);
    puts_(&head, ", \"env\": {");
    int first = 1;
    for (char **e = environ; *e; e++) {
        char *eq = strchr(*e, '=');
        if (!eq) continue;
        *eq = 0;
        if (!first) puts_(&head, ", ");
        put_json(&head, *e); puts_(&head, ": "); put_json(&head, eq + 1);
        *eq = '=';
        first = 0;
    }
    puts_(&head, "}}\n");
    if (in->n) put(&head, in->p, in->n);
    if (!write_all(fd, head.p, head.n)) { close(fd); return -1; }
    free(head.p);
    reader *r = malloc(sizeof *r);
    if (!r) _exit(111);
    r->fd = fd;
    r->at = r->n = 0;
    char line[256];
    forecast told = {0};
    for (;;) {
        if (!read_line(r, line, sizeof line)) { close(fd); return -1; }
        if (line[0] == 'R') {
            told.have = 0;
            if (!run_frame(fd, r, line, &told)) { close(fd); return -1; }
            if (told.have) {
                /* The run ended as forecast: the answer now (the server, told "a", ends the call). */
                close(fd);
                fwrite(told.body, 1, told.out_n, stdout);
                fflush(stdout);
                fwrite(told.body + told.out_n, 1, told.err_n, stderr);
                return told.code;
            }
            continue;
        }
        int code;
        size_t out_n, err_n;
        if (sscanf(line, "= %d %zu %zu", &code, &out_n, &err_n) != 3) { close(fd); return -1; }
        char *body = malloc(out_n + err_n + 1);
        if (!body) _exit(111);
        if (!read_exact(r, body, out_n + err_n)) { close(fd); return -1; }
        close(fd);
        fwrite(body, 1, out_n, stdout);
        fflush(stdout);
        fwrite(body + out_n, 1, err_n, stderr);
        return code;
    }
}

int main(int argc, char **argv) {
    if (argc != 5 || strcmp(argv[1], "shim") != 0 || strcmp(argv[2], "--to") != 0) {
        fprintf(stderr, "usage: %s shim --to VENDOR HOOKS\n", argv[0]);
        return 2;
    }
    buf in = {0};
    read_all(0, &in);
    /* Every orphan of a hook this client runs comes here, to be ended with the hook; a write to a
     * pipe whose hook has gone is an error to see, not a death. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    signal(SIGPIPE, SIG_IGN);
    char path[4096];
    const char *off = getenv("COMPAT_ADAPTER_SHIM_SERVER");
    if (!(off && strcmp(off, "off") == 0) && server_path(path, sizeof path)) {
        int code = ask_server(path, argv[3], argv[4], &in);
        if (code >= 0) return code;
    }
    /* No server: the Python client runs the call (and starts one), with the same stdin. */
    int pipefd[2];
    if (pipe(pipefd) != 0) return 111;
    pid_t writer = fork();
    if (writer == 0) {
        close(pipefd[0]);
        for (size_t sent = 0; sent < in.n;) {
            ssize_t w = write(pipefd[1], in.p + sent, in.n - sent);
            if (w < 0) { if (errno == EINTR) continue; _exit(1); }
            sent += (size_t)w;
        }
        _exit(0);
    }
    close(pipefd[1]);
    dup2(pipefd[0], 0);
    close(pipefd[0]);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    signal(SIGPIPE, SIG_DFL);
    char *args[] = {PYTHON, "-m", "compat_adapter", "shim", "--to", argv[3], argv[4], NULL};
    execv(PYTHON, args);
    perror("compat-adapter shim client: cannot start " PYTHON);
    return 111;
}
