// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfdata_writer_features: the payloads of a perf.data's feature sections,
 * in perf's formats: those the caller sets (strings, TRACING_DATA, NRCPUS,
 * BUILD_ID, CMDLINE, CLOCKID, SAMPLE_TIME) and EVENT_DESC, which __finish
 * builds from the attrs. perfdata_writer.c writes them out. Part of
 * common/: no logging, every error is a negative errno.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "byte_buffer.h"
#include "perfdata_writer-internal.h"

/* perf's header string: u32 padded length, bytes, NUL and zero padding. */
static int blob_put_string(struct byte_buffer *b, const char *s)
{
	static const char zeros[NAME_ALIGN];
	size_t len = strlen(s) + 1;
	size_t padded = (len + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1);
	int err;

	if (padded > UINT32_MAX)
		return -EINVAL;
	err = byte_buffer__put_u32(b, (uint32_t)padded);
	if (!err)
		err = byte_buffer__put(b, s, len);
	if (!err)
		err = byte_buffer__put(b, zeros, padded - len);
	return err;
}

/* Features may be set while attrs are added or records written. */
static int check_feature_state(const struct perfdata_writer *w)
{
	if (!w)
		return -EINVAL;
	if (w->state != WRITER_ATTRS && w->state != WRITER_DATA)
		return -EBADFD;
	return 0;
}

/* Takes @b as @feat's payload, replacing any before. */
int perfdata_writer_features__set(struct perfdata_writer *w, enum perfdata_feature feat,
				  struct byte_buffer *b)
{
	byte_buffer__fini(&w->feat[feat]);
	w->feat[feat] = *b;
	return 0;
}

/**
 * perfdata_writer__set_string - set a string feature
 * @w: the writer, before __finish
 * @feat: PERFDATA_FEAT_HOSTNAME, _OSRELEASE, _VERSION or _ARCH
 * @value: the string; copied
 *
 * Returns 0, -EBADFD after __finish or a failure, -EINVAL for another
 * feature, or -ENOMEM.
 */
int perfdata_writer__set_string(struct perfdata_writer *w, enum perfdata_feature feat,
				const char *value)
{
	struct byte_buffer b = { 0 };
	int err;

	err = check_feature_state(w);
	if (err)
		return err;
	if (!value)
		return -EINVAL;
	switch ((int)feat) { /* the string features; any other value is refused */
	case PERFDATA_FEAT_HOSTNAME:
	case PERFDATA_FEAT_OSRELEASE:
	case PERFDATA_FEAT_VERSION:
	case PERFDATA_FEAT_ARCH:
		break;
	default:
		return -EINVAL;
	}
	err = blob_put_string(&b, value);
	if (err) {
		byte_buffer__fini(&b);
		return err;
	}
	return perfdata_writer_features__set(w, feat, &b);
}

/**
 * perfdata_writer__set_tracing_data - set the TRACING_DATA feature
 * @w: the writer, before __finish
 * @data: the blob from tracing_data__build(); copied
 * @size: its size in bytes, not 0
 *
 * Returns 0, -EBADFD after __finish or a failure, -EINVAL, or -ENOMEM.
 */
int perfdata_writer__set_tracing_data(struct perfdata_writer *w, const void *data, size_t size)
{
	struct byte_buffer b = { 0 };
	int err;

	err = check_feature_state(w);
	if (err)
		return err;
	if (!data || !size)
		return -EINVAL;
	err = byte_buffer__put(&b, data, size);
	if (err)
		return err;
	return perfdata_writer_features__set(w, PERFDATA_FEAT_TRACING_DATA, &b);
}

/**
 * perfdata_writer__set_nrcpus - set the NRCPUS feature
 * @w: the writer, before __finish
 * @available: CPUs the system can have (perf's nr_cpus_avail)
 * @online: CPUs online
 *
 * Returns 0, -EBADFD after __finish or a failure, or -ENOMEM.
 */
int perfdata_writer__set_nrcpus(struct perfdata_writer *w, uint32_t available, uint32_t online)
{
	struct byte_buffer b = { 0 };
	int err;

	err = check_feature_state(w);
	if (err)
		return err;
	err = byte_buffer__put_u32(&b, available);
	if (!err)
		err = byte_buffer__put_u32(&b, online);
	if (err) {
		byte_buffer__fini(&b);
		return err;
	}
	return perfdata_writer_features__set(w, PERFDATA_FEAT_NRCPUS, &b);
}

/*
 * perf's build_id_event: a header (type unused, misc, size), the pid, 20
 * id bytes, the id's size and 3 reserved bytes, then the name, NUL-padded
 * to NAME_ALIGN. The size is valid only with PERF_RECORD_MISC_BUILD_ID_SIZE;
 * older readers took 20 bytes with trailing zeros cut.
 */
#define BUILD_ID_ENTRY_HEAD 36
#define MISC_BUILD_ID_SIZE  (1u << 15)

/**
 * perfdata_writer__add_build_id - add an object to the BUILD_ID feature
 * @w: the writer, before __finish
 * @pid: -1 for the host's objects (as perf writes them)
 * @misc: PERF_RECORD_MISC_KERNEL for the kernel and modules, else _USER
 * @id: the build-id
 * @size: its bytes, 1 to 20
 * @name: the object's path, "[kernel.kallsyms]" or "[module]"; copied
 *
 * Returns 0, -EBADFD after __finish or a failure, -EINVAL, or -ENOMEM.
 */
int perfdata_writer__add_build_id(struct perfdata_writer *w, int32_t pid, uint16_t misc,
				  const uint8_t *id, size_t size, const char *name)
{
	struct byte_buffer *b;
	uint8_t head[BUILD_ID_ENTRY_HEAD] = { 0 };
	size_t name_len, padded, old_len;
	uint16_t hsize, hmisc = (uint16_t)(misc | MISC_BUILD_ID_SIZE);
	int err;

	err = check_feature_state(w);
	if (err)
		return err;
	if (!id || !size || size > 20 || !name)
		return -EINVAL;
	name_len = strlen(name) + 1;
	padded = (name_len + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	if (BUILD_ID_ENTRY_HEAD + padded > UINT16_MAX)
		return -EINVAL;
	hsize = (uint16_t)(BUILD_ID_ENTRY_HEAD + padded);
	memcpy(head + 4, &hmisc, 2);
	memcpy(head + 6, &hsize, 2);
	memcpy(head + 8, &pid, 4);
	memcpy(head + 12, id, size);
	head[32] = (uint8_t)size;
	b = &w->feat[PERFDATA_FEAT_BUILD_ID];
	old_len = b->len;
	err = byte_buffer__put(b, head, sizeof(head));
	if (!err)
		err = byte_buffer__put(b, name, name_len);
	for (size_t i = name_len; !err && i < padded; i++)
		err = byte_buffer__put(b, "", 1);
	if (err)
		b->len = old_len; /* no half entry */
	return err;
}

/**
 * perfdata_writer__set_cmdline - set the CMDLINE feature
 * @w: the writer, before __finish
 * @argc: number of strings in @argv
 * @argv: the command line, argv[0] first; copied
 *
 * Returns 0, -EBADFD after __finish or a failure, -EINVAL, or -ENOMEM.
 */
int perfdata_writer__set_cmdline(struct perfdata_writer *w, int argc, const char *const *argv)
{
	struct byte_buffer b = { 0 };
	int err, i;

	err = check_feature_state(w);
	if (err)
		return err;
	if (argc < 0 || (argc && !argv))
		return -EINVAL;
	for (i = 0; i < argc; i++) {
		if (!argv[i])
			return -EINVAL;
	}
	err = byte_buffer__put_u32(&b, (uint32_t)argc);
	for (i = 0; !err && i < argc; i++)
		err = blob_put_string(&b, argv[i]);
	if (err) {
		byte_buffer__fini(&b);
		return err;
	}
	return perfdata_writer_features__set(w, PERFDATA_FEAT_CMDLINE, &b);
}

/**
 * perfdata_writer__set_clockid_res - set the CLOCKID feature
 * @w: the writer, before __finish
 * @res_ns: resolution of the sampling clock in ns (clock_getres())
 *
 * Returns 0, -EBADFD after __finish or a failure, or -ENOMEM.
 */
int perfdata_writer__set_clockid_res(struct perfdata_writer *w, uint64_t res_ns)
{
	struct byte_buffer b = { 0 };
	int err;

	err = check_feature_state(w);
	if (err)
		return err;
	err = byte_buffer__put_u64(&b, res_ns);
	if (err)
		return err;
	return perfdata_writer_features__set(w, PERFDATA_FEAT_CLOCKID, &b);
}

/**
 * perfdata_writer__set_sample_time - set the SAMPLE_TIME feature
 * @w: the writer, before __finish
 * @first: time of the first sample (perf clock, ns)
 * @last: time of the last sample
 *
 * Returns 0, -EBADFD after __finish or a failure, or -ENOMEM.
 */
int perfdata_writer__set_sample_time(struct perfdata_writer *w, uint64_t first, uint64_t last)
{
	struct byte_buffer b = { 0 };
	int err;

	err = check_feature_state(w);
	if (err)
		return err;
	err = byte_buffer__put_u64(&b, first);
	if (!err)
		err = byte_buffer__put_u64(&b, last);
	if (err) {
		byte_buffer__fini(&b);
		return err;
	}
	return perfdata_writer_features__set(w, PERFDATA_FEAT_SAMPLE_TIME, &b);
}

/* EVENT_DESC: nr, attr size, then per event attr, nr_ids, name, ids. */
int perfdata_writer_features__build_event_desc(struct perfdata_writer *w)
{
	unsigned char attr[FILE_ATTR_SIZE];
	struct byte_buffer b = { 0 };
	size_t i;
	int err;

	err = byte_buffer__put_u32(&b, (uint32_t)w->nr_attrs);
	if (!err)
		err = byte_buffer__put_u32(&b, FILE_ATTR_SIZE);
	for (i = 0; !err && i < w->nr_attrs; i++) {
		const struct writer_attr *a = &w->attrs[i];

		perfdata_writer__file_attr(a, attr);
		err = byte_buffer__put(&b, attr, sizeof(attr));
		if (!err)
			err = byte_buffer__put_u32(&b, (uint32_t)a->nr_ids);
		if (!err)
			err = blob_put_string(&b, a->name);
		if (!err)
			err = byte_buffer__put(&b, a->ids, a->nr_ids * sizeof(uint64_t));
	}
	if (err) {
		byte_buffer__fini(&b);
		return err;
	}
	return perfdata_writer_features__set(w, PERFDATA_FEAT_EVENT_DESC, &b);
}
