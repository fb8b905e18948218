# SPDX-License-Identifier: GPL-2.0-only
# A Debian package: cmake -S . -B build -DCMAKE_INSTALL_PREFIX=/usr
#                   cmake --build build && (cd build && cpack -G DEB)
set(CPACK_PACKAGE_NAME perfsnapd)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# .invalid (RFC 2606): there is no list to write to yet, and lintian
# refuses a host that is not a domain.
set(CPACK_PACKAGE_CONTACT "perfsnapd maintainers <maintainers@perfsnapd.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "flight recorder for Linux perf events")
set(CPACK_PACKAGE_DESCRIPTION
	"perfsnapd records perf events into overwritable per-CPU rings and, on a\n signal, a trigger or perfsnapctl dump, writes perf.data, trace.dat and\n Perfetto snapshots of the recent past.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
# Stage with DESTDIR so /usr and /etc land where they belong.
set(CPACK_SET_DESTDIR ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The maintainer scripts' deb-systemd-helper and deb-systemd-invoke come
# with init-system-helpers, which is essential: no dependency to declare.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "linux-perf | perf")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "trace-cmd, kernelshark")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
	${PROJECT_SOURCE_DIR}/packaging/conffiles
	${PROJECT_SOURCE_DIR}/packaging/postinst
	${PROJECT_SOURCE_DIR}/packaging/prerm
	${PROJECT_SOURCE_DIR}/packaging/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Debian ships stripped binaries (lintian: unstripped-binary-or-object).
set(CPACK_STRIP_FILES ON)
include(CPack)
