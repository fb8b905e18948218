// SPDX-License-Identifier: GPL-2.0-only
/* elf_buildid: see elf_buildid.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "elf_buildid.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/*
 * libelf reads a note area whole, into memory of the size its header
 * claims. Build-id notes sit in small areas (36 bytes; a few hundred
 * beside .note.gnu.property and ABI tags), so a larger claim, such as a
 * sparse file's gigabyte of "notes", is skipped unread, and at most so
 * many areas are read per object.
 */
#define NOTE_AREA_MAX  (64u << 10)
#define NOTE_AREAS_MAX 16

/* Walks one note area; 0 when the build-id was found. */
static int find_in_notes(Elf_Data *data, struct elf_buildid *ret)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nhdr;

	while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
			continue;
		if (nhdr.n_descsz == 0 || nhdr.n_descsz > ELF_BUILDID_MAX)
			return -ENOENT;
		ret->size = (uint8_t)nhdr.n_descsz;
		memcpy(ret->data, (const char *)data->d_buf + desc_off, nhdr.n_descsz);
		return 0;
	}
	return -ENOENT;
}

/*
 * Program headers first (what the loader maps, present even in stripped
 * objects), then sections (objects without PT_NOTE, e.g. debug files).
 */
static int find_build_id(Elf *elf, struct elf_buildid *ret)
{
	size_t nr_phdr = 0, areas = 0;
	Elf_Scn *scn = NULL;

	if (elf_getphdrnum(elf, &nr_phdr) == 0) {
		for (size_t i = 0; i < nr_phdr && areas < NOTE_AREAS_MAX; i++) {
			GElf_Phdr phdr;
			Elf_Data *data;

			if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_NOTE ||
			    phdr.p_filesz > NOTE_AREA_MAX)
				continue;
			areas++;
			data = elf_getdata_rawchunk(elf, (int64_t)phdr.p_offset, phdr.p_filesz,
						    phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (data && find_in_notes(data, ret) == 0)
				return 0;
		}
	}
	while (areas < NOTE_AREAS_MAX && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE ||
		    shdr.sh_size > NOTE_AREA_MAX)
			continue;
		areas++;
		data = elf_getdata(scn, NULL);
		if (data && find_in_notes(data, ret) == 0)
			return 0;
	}
	return -ENOENT;
}

int elf_buildid__read_fd(int fd, struct elf_buildid *ret)
{
	Elf *elf;
	int err;

	memset(ret, 0, sizeof(*ret));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	err = elf_kind(elf) == ELF_K_ELF ? find_build_id(elf, ret) : -ENOEXEC;
	elf_end(elf);
	return err;
}

int elf_buildid__read_path(const char *path, struct elf_buildid *ret)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0) {
		memset(ret, 0, sizeof(*ret));
		return -errno;
	}
	err = elf_buildid__read_fd(fd, ret);
	close(fd);
	return err;
}

/* Notes are 4-byte words: namesz, descsz, type, then name and desc, each padded to 4. */
int elf_buildid__read_notes_path(const char *path, struct elf_buildid *ret)
{
	uint8_t buf[4096];
	size_t len = 0, off = 0;
	ssize_t n;
	int fd;

	memset(ret, 0, sizeof(*ret));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += (size_t)n;
	close(fd);
	while (len - off >= 12) {
		uint32_t w[3];
		size_t name_pad, desc_pad;

		memcpy(w, buf + off, sizeof(w));
		name_pad = ((size_t)w[0] + 3) & ~(size_t)3;
		desc_pad = ((size_t)w[1] + 3) & ~(size_t)3;
		if (name_pad > len - off - 12 || desc_pad > len - off - 12 - name_pad)
			break;
		if (w[2] == NT_GNU_BUILD_ID && w[0] == 4 && !memcmp(buf + off + 12, "GNU", 4)) {
			if (!w[1] || w[1] > ELF_BUILDID_MAX)
				return -ENOENT;
			ret->size = (uint8_t)w[1];
			memcpy(ret->data, buf + off + 12 + name_pad, w[1]);
			return 0;
		}
		off += 12 + name_pad + desc_pad;
	}
	return -ENOENT;
}

void elf_buildid__hex(const struct elf_buildid *id, char *buf)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < id->size; i++) {
		buf[2 * i] = digits[id->data[i] >> 4];
		buf[2 * i + 1] = digits[id->data[i] & 15];
	}
	buf[2 * id->size] = '\0';
}
