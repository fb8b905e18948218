// SPDX-License-Identifier: GPL-2.0-only
/*
 * copy-memory: what the copy of a ring costs in each kind of memory a dump
 * can copy it to, taken anew for each copy as a dump takes it (the choice
 * behind ring_copy__map_file(), docs/decisions.md):
 *   anon:  anonymous memory, MADV_POPULATE_WRITE, then memcpy (the copier
 *          writes it: what dumps did before 2026-12-02);
 *   file:  a memory file per copy, written with pwrite (the kernel copies
 *          into its page cache), then mapped read-only and populated;
 *   pread: the same memory file, not mapped: read back with pread, 256 KiB
 *          at a time, into one buffer the process keeps (the kernel reads
 *          the pages through its own mapping, user space only the buffer).
 * Then each copy is read twice, 8 bytes per 64, as the seal's walk and a
 * writer's later walk of the records do: on a guest whose hypervisor
 * pays for a user mapping's first access to each page, only the first
 * pass through a new view costs that. A warm source stands for the ring,
 * which stays mapped. The kinds take turns, GAP ms apart, so that all see
 * the same host.
 *
 * usage: copy-memory [MIB [GAP_MS [ROUNDS]]]   (defaults: 64 4000 6)
 * Prints per copy: kind, take (map, populate), copy, read, reread, total
 * (without the reread), in ms.
 * Pin it (taskset -c 0) to measure one CPU.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int die(const char *what)
{
	fprintf(stderr, "copy-memory: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Reads @size bytes of @p, 8 per cache line; the sum keeps the loads. */
static uint64_t read_once(const uint8_t *p, size_t size)
{
	uint64_t sum = 0;

	for (size_t o = 0; o < size; o += 64)
		sum += *(const volatile uint64_t *)(p + o);
	return sum;
}

enum kind { ANON, FILE_VIEW, PREAD, NR_KINDS };
static const char *const kind_name[NR_KINDS] = { "anon", "file", "pread" };

#define PREAD_PIECE (256u << 10)

/* read_once() of a memory file's @size bytes, pread into @buf piece by piece. */
static uint64_t pread_once(int fd, uint8_t *buf, size_t size)
{
	uint64_t sum = 0;

	for (size_t off = 0; off < size; off += PREAD_PIECE) {
		size_t n = size - off < PREAD_PIECE ? size - off : PREAD_PIECE;

		if (pread(fd, buf, n, (off_t)off) != (ssize_t)n)
			return 0;
		sum += read_once(buf, n);
	}
	return sum;
}

static int write_file(int fd, const uint8_t *src, size_t size)
{
	for (size_t off = 0; off < size;) {
		ssize_t n = pwrite(fd, src + off, size - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t size = (size_t)(argc > 1 ? atol(argv[1]) : 64) << 20;
	long gap = argc > 2 ? atol(argv[2]) : 4000;
	int rounds = argc > 3 ? atoi(argv[3]) : 6;
	uint8_t *src = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static uint8_t piece[PREAD_PIECE];
	uint64_t sum = 0;

	if (!size || src == MAP_FAILED)
		return die("source");
	for (size_t i = 0; i < size; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 12));
	memset(piece, 0, sizeof(piece)); /* kept between dumps: resident */
	printf("kind  take_ms copy_ms read_ms reread_ms total_ms   (%zu MiB, %ld ms apart)\n",
	       size >> 20, gap);
	for (int i = 0; i < NR_KINDS * rounds; i++) {
		enum kind kind = (enum kind)(i % NR_KINDS);
		bool file = kind != ANON;
		double t0 = now_ms(), t1, t2, t3, t4;
		uint8_t *p = NULL;
		int fd = -1;

		read_once(src, size); /* the ring is warm when a dump copies it */
		t0 = now_ms();
		if (file) {
			fd = memfd_create("copy-memory", MFD_CLOEXEC);
			if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
				return die("memfd");
			t1 = now_ms();
			if (write_file(fd, src, size) < 0)
				return die("pwrite");
		}
		if (kind == FILE_VIEW) {
			p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
			if (p == MAP_FAILED)
				return die("mmap");
			(void)madvise(p, size, MADV_POPULATE_READ);
		} else if (kind == ANON) {
			p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);
			if (p == MAP_FAILED)
				return die("mmap");
			(void)madvise(p, size, MADV_NOHUGEPAGE);
			(void)madvise(p, size, MADV_POPULATE_WRITE);
			t1 = now_ms();
			memcpy(p, src, size);
		}
		t2 = now_ms();
		sum += p ? read_once(p, size) : pread_once(fd, piece, size);
		t3 = now_ms();
		sum += p ? read_once(p, size) : pread_once(fd, piece, size);
		t4 = now_ms();
		printf("%-5s %7.1f %7.1f %7.1f %9.1f %8.1f\n", kind_name[kind], t1 - t0, t2 - t1,
		       t3 - t2, t4 - t3, t3 - t0);
		if (p)
			munmap(p, size);
		if (fd >= 0)
			close(fd);
		usleep((useconds_t)gap * 1000);
	}
	return sum == 42; /* never: keeps the reads */
}
