/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * text: what perfsnapd writes for people and parsers (the log, the control
 * protocol, the sidecar JSON) holds bytes it does not choose: a client's
 * dump reason, a task's name from the kernel, a server's error body. Such
 * text is read as UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF); what is not UTF-8, or is a control character,
 * is replaced, so that JSON stays valid and a terminal takes no escape
 * sequence from a log line. Nothing here allocates or logs.
 */
#ifndef PERFSNAPD_TEXT_H
#define PERFSNAPD_TEXT_H

#include <stddef.h>

/*
 * The length (1 to 4) of the valid UTF-8 sequence that starts at @s, or 0
 * where @s starts none (a NUL ends @s: a sequence cut by it is invalid).
 */
size_t text__utf8_len(const char *s);
/*
 * In place: each byte of @s that is a control character (below 0x20, or
 * 0x7f) or not part of a valid UTF-8 sequence becomes '?'. Returns how
 * many bytes were replaced.
 */
size_t text__sanitize(char *s);

/*
 * The last @lines lines of @s (trailing blank lines and spaces left out)
 * on one line into @buf, newlines and tabs as spaces, cut to @size: the
 * end of a long log (a BPF verifier's, whose last lines say what it
 * refused) for a one-line message.
 */
void text__last_lines(const char *s, int lines, char *buf, size_t size);

#endif
