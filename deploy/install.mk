# SPDX-License-Identifier: GPL-2.0-only
# make install / uninstall / deb, and their checks (included by Makefile).
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [SBINDIR=] [MANDIR=] ...
#
# The binary, classifier(8) and classifier-sync(8), bash completion, the
# systemd units, whose ExecStart names the installed binary, and the
# group and pin directory of the readers (sysusers.d, tmpfiles.d: run
# systemd-sysusers and systemd-tmpfiles --create, or reboot).  Examples of
# the configuration go to DOCDIR/examples, never to /etc: the units do
# nothing until /etc/default/classifier (or /etc/classifier/sync.conf)
# exists, and an install never overwrites or removes configuration.

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/classifier
# Where this system's systemd and bash-completion look, whatever PREFIX.
ifndef SYSTEMDUNITDIR
SYSTEMDUNITDIR := $(or $(shell pkg-config --variable=systemdsystemunitdir \
	systemd 2>/dev/null),/lib/systemd/system)
endif
ifndef SYSUSERSDIR
SYSUSERSDIR := $(or $(shell pkg-config --variable=sysusersdir systemd \
	2>/dev/null),/usr/lib/sysusers.d)
endif
ifndef TMPFILESDIR
TMPFILESDIR := $(or $(shell pkg-config --variable=tmpfilesdir systemd \
	2>/dev/null),/usr/lib/tmpfiles.d)
endif
ifndef BASHCOMPDIR
BASHCOMPDIR := $(or $(shell pkg-config --variable=completionsdir \
	bash-completion 2>/dev/null),$(DATADIR)/bash-completion/completions)
endif
INSTALL ?= install

UNITS := classifier.service classifier-sync.service classifier-exporter.service
MANPAGES := classifier.8 classifier-sync.8
# source in deploy/ -> name under DOCDIR/examples
EXAMPLES := default.classifier:default.classifier \
	classifier.batch.example:classifier.batch \
	routes.example:routes \
	sync/sync.conf:sync.conf \
	sync/bird-classes.conf:bird-classes.conf \
	sync/frr-sync.conf:frr-sync.conf \
	sync/frr-classes.conf:frr-classes.conf
EXAMPLE_NAMES := $(foreach e,$(EXAMPLES),$(word 2,$(subst :, ,$(e))))

.PHONY: install uninstall install-check deb deb-check

install: $(OUTPUT)/classifier
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(TMPFILESDIR)
	$(Q)$(INSTALL) -m 0644 deploy/classifier.sysusers \
		$(DESTDIR)$(SYSUSERSDIR)/classifier.conf
	$(Q)$(INSTALL) -m 0644 deploy/classifier.tmpfiles \
		$(DESTDIR)$(TMPFILESDIR)/classifier.conf
	$(Q)$(INSTALL) -m 0755 $(OUTPUT)/classifier $(DESTDIR)$(SBINDIR)/
	$(Q)$(INSTALL) -m 0644 $(addprefix deploy/man/,$(MANPAGES)) \
		$(DESTDIR)$(MANDIR)/man8/
	$(Q)$(INSTALL) -m 0644 deploy/completion/classifier \
		$(DESTDIR)$(BASHCOMPDIR)/classifier
	$(Q)set -e; for u in $(UNITS); do \
		sed 's|/usr/local/sbin/classifier|$(SBINDIR)/classifier|g' \
			deploy/$$u > $(DESTDIR)$(SYSTEMDUNITDIR)/$$u.tmp; \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$u.tmp; \
		mv $(DESTDIR)$(SYSTEMDUNITDIR)/$$u.tmp \
			$(DESTDIR)$(SYSTEMDUNITDIR)/$$u; \
	done
	$(Q)set -e; for e in $(EXAMPLES); do \
		$(INSTALL) -m 0644 deploy/$${e%%:*} \
			$(DESTDIR)$(DOCDIR)/examples/$${e#*:}; \
	done

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/classifier \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(MANPAGES)) \
		$(DESTDIR)$(BASHCOMPDIR)/classifier \
		$(DESTDIR)$(SYSUSERSDIR)/classifier.conf \
		$(DESTDIR)$(TMPFILESDIR)/classifier.conf \
		$(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(UNITS)) \
		$(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(EXAMPLE_NAMES))
	$(Q)rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null || :

# The .deb (debhelper), built from a copy of the tree in $(OUTPUT)/deb;
# lintian errors fail it.
deb:
	$(call msg,DEB,$(OUTPUT)/deb)
	$(Q)./deploy/deb.sh $(OUTPUT)/deb

# make install into DESTDIRs: file list, units, man pages, completion.
install-check: $(OUTPUT)/classifier
	$(Q)./tests/pkg/install_check.sh $(OUTPUT)

# make deb, then the package on a debootstrap'd Debian 12 (cached in
# $(OUTPUT)): ~30 s warm, ~100 s and 200 MB from Debian's mirror cold, so
# .ci/run runs it after check rather than check itself.
deb-check: deb
	$(Q)./tests/pkg/deb_root.sh $(OUTPUT)
