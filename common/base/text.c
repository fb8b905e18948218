// SPDX-License-Identifier: GPL-2.0-only
/* text: UTF-8 validation and the sanitising of text perfsnapd writes. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "text.h"

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t text__utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
	size_t len;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		len = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		len = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		len = 4;
	else
		return 0; /* a continuation byte, 0xc0/0xc1 (overlong) or past U+10FFFF */
	/* The second byte's range rules out overlong forms, surrogates and > U+10FFFF. */
	if (u[0] == 0xe0)
		lo = 0xa0;
	else if (u[0] == 0xed)
		hi = 0x9f;
	else if (u[0] == 0xf0)
		lo = 0x90;
	else if (u[0] == 0xf4)
		hi = 0x8f;
	if (u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (!continuation(u[i]))
			return 0;
	return len;
}

size_t text__sanitize(char *s)
{
	size_t replaced = 0;

	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t len = text__utf8_len(s);

		if (len == 0 || c < 0x20 || c == 0x7f) {
			*s++ = '?';
			replaced++;
		} else {
			s += len;
		}
	}
	return replaced;
}

void text__last_lines(const char *s, int lines, char *buf, size_t size)
{
	const char *end = s + strlen(s), *p;
	size_t len = 0;
	int n = 0;

	if (!size)
		return;
	while (end > s && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	p = end;
	while (p > s) {
		if (p[-1] == '\n' && ++n == lines)
			break;
		p--;
	}
	for (; p < end && len + 1 < size; p++)
		buf[len++] = *p == '\n' || *p == '\t' ? ' ' : *p;
	buf[len] = '\0';
}
