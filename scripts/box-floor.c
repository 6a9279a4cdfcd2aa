/* The least a box can cost a start on this machine: the kernel calls alone, with no Rust, no
 * allocation and nothing worked out. Reads the rules box_cost wrote (FLOOR_OUT) and is compiled
 * with its seccomp program (filter.h). Each round, turn about: the ruleset made (created, each
 * path opened, its rule added, closed), a child started the vfork way that enters the box
 * (no new privileges, no capabilities, the ruleset, the filter) and runs /bin/true, and a plain
 * child that runs /bin/true. BALLAST_MB of memory is written before each step, so the kernel's
 * structures are as cold as after a host's own work. Prints medians in microseconds.
 * With "once box" or "once plain" instead of a count of rounds, a fresh process makes one boxed
 * start (printing the ruleset's time and the start's) or one plain start: a CLI starts one server
 * per process, so its box is always built the first time. Not a test.
 * Usage: scripts/box-floor.sh (which builds and runs this). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Landlock's ABI, spelt out: the system's headers may predate the rights used. */
struct ruleset_attr { uint64_t fs, net, scoped; };
struct __attribute__((packed)) path_beneath { uint64_t access; int32_t fd; };
#define FS_EXECUTE 1ull
#define FS_READ_FILE 4ull
#define FS_READ_DIR 8ull
#define FS_ALL ((1ull << 16) - 1) /* ABI 5 and 6 */
#define FS_FILE (FS_EXECUTE | 2ull | FS_READ_FILE | (1ull << 14) | (1ull << 15))
#define SCOPES 3ull

static struct sock_filter program[] = {
#include "filter.h"
};
static struct sock_fprog fprog = {sizeof program / sizeof *program, program};

struct rule { char path[4096]; uint64_t access; };
static struct rule rules[256];
static int nrules;

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void read_rules(const char *file) {
  FILE *f = fopen(file, "r");
  char kind, shape;
  if (!f) { perror(file); exit(1); }
  while (nrules < 256 && fscanf(f, " %c %c %4095[^\n]", &kind, &shape, rules[nrules].path) == 3) {
    uint64_t access = kind == 'w' ? FS_ALL : FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
    rules[nrules++].access = shape == 'f' ? access & FS_FILE : access;
  }
  fclose(f);
}

static int make_ruleset(void) {
  struct ruleset_attr attr = {FS_ALL, 0, SCOPES};
  int ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0) { perror("landlock_create_ruleset"); exit(1); }
  for (int i = 0; i < nrules; i++) {
    int fd = open(rules[i].path, O_PATH | O_CLOEXEC);
    if (fd < 0) continue;
    struct path_beneath rule = {rules[i].access, fd};
    if (syscall(SYS_landlock_add_rule, ruleset, 1, &rule, 0)) { perror(rules[i].path); exit(1); }
    close(fd);
  }
  return ruleset;
}

static long start(int ruleset) {
  char *argv[] = {"/bin/true", NULL}, *envp[] = {NULL};
  long t = now_ns();
  pid_t pid = vfork();
  if (pid == 0) {
    if (ruleset >= 0) {
      uint32_t header[2] = {0x20080522, 0}, data[6] = {0};
      if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_capset, header, data) ||
          syscall(SYS_landlock_restrict_self, ruleset, 0) ||
          syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, &fprog))
        _exit(126);
    }
    execve("/bin/true", argv, envp);
    _exit(127);
  }
  int status;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
    fprintf(stderr, "the child failed\n");
    exit(1);
  }
  return now_ns() - t;
}

static int by_value(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static long median_us(long *v, int n) {
  qsort(v, n, sizeof *v, by_value);
  return v[n / 2] / 1000;
}

/* One start in this fresh process: "box <ruleset µs> <start µs>" or "plain <start µs>". */
static int once(int boxed) {
  if (!boxed) {
    printf("plain %ld\n", start(-1) / 1000);
    return 0;
  }
  long t = now_ns();
  int ruleset = make_ruleset();
  long made = now_ns() - t;
  printf("box %ld %ld\n", made / 1000, start(ruleset) / 1000);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: box-floor RULES [ROUNDS | once box|plain]\n"); return 2; }
  read_rules(argv[1]);
  if (argc > 3 && !strcmp(argv[2], "once")) return once(!strcmp(argv[3], "box"));
  int n = argc > 2 ? atoi(argv[2]) : 400;
  size_t ballast_mb = getenv("BALLAST_MB") ? strtoul(getenv("BALLAST_MB"), NULL, 10) : 0;
  char *ballast = ballast_mb ? malloc(ballast_mb << 20) : NULL;
  long *make = calloc(n, sizeof(long)), *boxed = calloc(n, sizeof(long)),
       *plain = calloc(n, sizeof(long));
  for (int i = 0; i < n; i++) {
    if (ballast) memset(ballast, i, ballast_mb << 20);
    long t = now_ns();
    int ruleset = make_ruleset();
    make[i] = now_ns() - t;
    if (ballast) memset(ballast, i + 1, ballast_mb << 20);
    boxed[i] = start(ruleset);
    close(ruleset);
    if (ballast) memset(ballast, i + 2, ballast_mb << 20);
    plain[i] = start(-1);
  }
  long rules_us = median_us(make, n), boxed_us = median_us(boxed, n), plain_us = median_us(plain, n);
  printf("%zu MiB written between steps, %d rounds, %d paths, %zu filter instructions:\n",
         ballast_mb, n, nrules, sizeof program / sizeof *program);
  printf("  ruleset made: %ld us; start of /bin/true: %ld us boxed, %ld us plain (entry +%ld us)\n",
         rules_us, boxed_us, plain_us, boxed_us - plain_us);
  printf("  floor (ruleset + entry): %ld us\n", rules_us + boxed_us - plain_us);
  return 0;
}
