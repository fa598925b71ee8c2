/* The compiled shim client: what a ported entry runs when `compat-adapter port --fast-client` built it.
 *
 * The same call as compat_adapter/port/client.py, without starting Python: the target's stdin, the
 * folder and the environment go to the warm shim server on its Unix socket (the same folder and
 * name the Python client computes, so both reach the same server), and the server's answer is
 * written back. When no server answers, the call is handed, stdin and all, to the Python client
 * (PYTHON -m compat_adapter shim ...), which runs it and starts a server for the next calls.
 *
 * Built with: cc -O2 -DPKGDIR='"…/compat_adapter/port"' -DPYTHON='"…/python"' client.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
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
    const char *names[] = {"shim.py", "server.py"};
    for (int i = 0; i < 2; i++) {
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

/* The server's framed reply: "<exit> <stdout bytes> <stderr bytes>\n" then the two texts. */
static int ask_server(const char *path, const char *target, const char *hooks, buf *in) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) { close(fd); return -1; }
    strcpy(addr.sun_path, path);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) { close(fd); return -1; }
    buf head = {0};
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) { close(fd); return -1; }
    puts_(&head, "{\"frame\": true, \"to\": "); put_json(&head, target);
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
    for (size_t sent = 0; sent < head.n;) {
        ssize_t w = write(fd, head.p + sent, head.n - sent);
        if (w < 0) { if (errno == EINTR) continue; close(fd); return -1; }
        sent += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    buf reply = {0};
    read_all(fd, &reply);
    close(fd);
    if (!reply.p) return -1;
    char *nl = memchr(reply.p, '\n', reply.n);
    int code;
    size_t out_n, err_n;
    if (!nl || sscanf(reply.p, "%d %zu %zu", &code, &out_n, &err_n) != 3) return -1;
    char *body = nl + 1;
    if ((size_t)(reply.p + reply.n - body) != out_n + err_n) return -1;
    fwrite(body, 1, out_n, stdout);
    fflush(stdout);
    fwrite(body + out_n, 1, err_n, stderr);
    return code;
}

int main(int argc, char **argv) {
    if (argc != 5 || strcmp(argv[1], "shim") != 0 || strcmp(argv[2], "--to") != 0) {
        fprintf(stderr, "usage: %s shim --to VENDOR HOOKS\n", argv[0]);
        return 2;
    }
    buf in = {0};
    read_all(0, &in);
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
    char *args[] = {PYTHON, "-m", "compat_adapter", "shim", "--to", argv[3], argv[4], NULL};
    execv(PYTHON, args);
    perror("compat-adapter shim client: cannot start " PYTHON);
    return 111;
}
