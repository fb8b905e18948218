/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace_server: perfsnap-convert --open. Serves one file on
 * 127.0.0.1:9001, the only address the Perfetto UI's content security
 * policy lets it fetch traces from, to one UI origin (its CORS header), with
 * libevent's evhttp, until the UI has fetched it once.
 */
#ifndef PERFSNAPD_TRACE_SERVER_H
#define PERFSNAPD_TRACE_SERVER_H

#define TRACE_SERVER_PORT 9001

/*
 * Serves @path as /<its base name> to @origin (e.g. "https://ui.perfetto.dev"):
 * prints the URL to open on stdout, tries to start a browser, and returns
 * after one complete GET of it. Every other path gets 404, another origin
 * 403. Returns 0, or 1 after one line on stderr.
 */
int trace_server__run(const char *path, const char *origin);

#endif
