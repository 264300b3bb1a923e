# benchline: `make` builds ./benchline; `make check` installs what is missing, builds and runs
# every test; `make run` seeds a demo database and shows it. See README.md.

PREFIX ?= /usr/local
CC ?= cc
SANITIZE ?=
# `make V=1` shows every command.
ifeq ($(V),1)
Q =
else
Q = @
endif

# Debian packages the build and the tests need (make deps installs the missing ones).
DEPS_PKGS = build-essential pkg-config libsqlite3-dev libgit2-dev libjansson-dev \
	libmicrohttpd-dev libcmocka-dev sqlite3 git perl gnuplot-nox clang clang-format \
	libclang-rt-14-dev valgrind libcurl4-openssl-dev libssl-dev libpq-dev postgresql \
	libxml2-utils

PKGS = sqlite3 libgit2 jansson libcurl libcrypto libpq
WARN = -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat-security \
	-Wold-style-definition -Wwrite-strings -fno-common
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -I. $(shell pkg-config --cflags-only-I libpq 2>/dev/null || echo -I/usr/include/postgresql) $(WARN) $(CFLAGS)
LDLIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lsqlite3 -lgit2 -ljansson -lcurl -lcrypto -lpq) -lm

# The sanitizer variant builds into its own directory so both can coexist.
ifneq ($(SANITIZE),)
BUILD = build/san
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
else
BUILD = build/default
endif

# Every room's sources: a folder's own files and those of its rooms one level down.
ROOMS = common store ingest ingest/config ingest/adapters ingest/repo ingest/preflight ingest/push \
	ingest/bench detect detect/stats detect/ladder detect/gate detect/confirm web fixtures/demo
LIB_SRC = $(foreach r,$(ROOMS),$(wildcard $(r)/*.c))
CLI_SRC = $(wildcard cli/*.c)
GEN = $(BUILD)/gen
LIB_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC)) $(GEN)/sql_embed.o
CLI_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRC))
LIB = $(BUILD)/libbenchline.a
BIN = $(BUILD)/benchline
MIGRATIONS = $(sort $(wildcard sql/[0-9][0-9][0-9]-*.sql))
SQL = $(MIGRATIONS) $(filter-out $(MIGRATIONS),$(sort $(wildcard sql/*.sql)))
# The PostgreSQL dialect of the same (store/pg.c), in the same order.
PG_MIGRATIONS = $(sort $(wildcard sql/pg/[0-9][0-9][0-9]-*.sql))
PG_SQL = $(PG_MIGRATIONS) $(filter-out $(PG_MIGRATIONS),$(sort $(wildcard sql/pg/*.sql)))

UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all deps check unit e2e run bench fmt fmt-check hdr-check install clean fuzz man deb dist

all: benchline man

# The man page and the bash completion, written by the binary from its command and option
# tables (`benchline generate`), so they say what `COMMAND --help` says.
MAN = $(BUILD)/benchline.1
COMPLETION = $(BUILD)/benchline.bash
man: $(MAN) $(COMPLETION)

$(MAN): $(BIN)
	@echo "  GEN     $@"
	$(Q)$(BIN) generate manpage >$@.tmp && mv $@.tmp $@

$(COMPLETION): $(BIN)
	@echo "  GEN     $@"
	$(Q)$(BIN) generate completion >$@.tmp && mv $@.tmp $@

# ./benchline is always the plain build; sanitizer builds stay under build/san.
benchline: $(BIN)
ifeq ($(SANITIZE),)
	$(Q)cp $(BIN) benchline
endif

$(BIN): $(CLI_OBJ) $(LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

$(LIB): $(LIB_OBJ)
	$(Q)rm -f $@
	@echo "  AR      $@"
	$(Q)ar rcs $@ $^

$(GEN)/sql_embed.c $(GEN)/sql_embed.h &: store/embed-sql.sh $(SQL) $(PG_SQL)
	@mkdir -p $(GEN)
	$(Q)sh store/embed-sql.sh $(GEN)/sql_embed.c $(GEN)/sql_embed.h $(SQL) -- $(PG_SQL)

$(GEN)/sql_embed.o: $(GEN)/sql_embed.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.c $(GEN)/sql_embed.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -I$(GEN) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -I$(GEN) -Wno-missing-prototypes -o $@ $< $(LIB) $(LDFLAGS) \
		$(LDLIBS) -lcmocka

-include $(shell find build -name '*.d' 2>/dev/null)

deps:
	@sh tests/deps.sh $(DEPS_PKGS)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "# $$t"; $$t; done

e2e: benchline $(BIN)
	BENCHLINE=$(CURDIR)/$(BIN) prove -j2 tests/e2e/

# `make check DB=postgres`: the same unit and end-to-end tests with every database on a
# PostgreSQL server of the suite's own (tests/pg/server.sh: a temporary cluster on a free
# loopback port, stopped at the end whatever the outcome).
DB ?= sqlite
PG_TEST_DIR := $(shell mktemp -u /tmp/benchline-pg.XXXXXX)

check: deps
	$(MAKE) benchline
	$(MAKE) fmt-check
	$(MAKE) hdr-check
ifeq ($(DB),postgres)
	rm -rf $(PG_TEST_DIR)
	url=$$(sh tests/pg/server.sh start $(PG_TEST_DIR)) && \
	BENCHLINE_TEST_PG=$$url $(MAKE) unit && BENCHLINE_TEST_PG=$$url $(MAKE) e2e; \
	rc=$$?; sh tests/pg/server.sh stop $(PG_TEST_DIR); exit $$rc
else
	$(MAKE) unit
	$(MAKE) e2e
endif

# Seeds demo.db, runs detect when this build has it, and serves it on 127.0.0.1:$(PORT)
# (`make run PORT=9000`; the server prints the URL; Ctrl-C or SIGTERM stops it cleanly).
PORT ?= 8080
run: deps benchline
	rm -f demo.db demo.db-wal demo.db-shm
	./benchline --db demo.db demo
	if ./benchline help | grep -q '^    detect '; then ./benchline --db demo.db detect; fi
	./benchline --db demo.db serve --bind 127.0.0.1 --port $(PORT)

# Every budget of §12 measured so far; exits non-zero when one is missed. `make bench
# DB=postgres` measures issue 16's goals instead, on a PostgreSQL server of its own
# (tests/bench/pg.sh).
bench: benchline
ifeq ($(DB),postgres)
	sh tests/bench/pg.sh
else
	sh tests/bench/run.sh; a=$$?; sh tests/bench/web.sh; b=$$?; [ $$a -eq 0 ] && [ $$b -eq 0 ]
endif

# Every C file of the tree, for clang-format.
FMT_SRC = $(foreach r,$(ROOMS) cli tests/unit tests/fuzz tests/bench,$(wildcard $(r)/*.c $(r)/*.h))

fuzz:
	sh tests/fuzz/run.sh

# Every header of the source rooms and cli/ compiles on its own, as git's hdr-check: it includes
# what it uses. Nothing is written, so every run checks them all again.
HDR_SRC = $(foreach r,$(ROOMS) cli,$(wildcard $(r)/*.h))
HDR_CHECK = $(patsubst %.h,$(BUILD)/hdr-check/%.hco,$(HDR_SRC))
hdr-check: $(HDR_CHECK)
$(HDR_CHECK): $(BUILD)/hdr-check/%.hco: %.h $(GEN)/sql_embed.h FORCE
	@echo "  HDR     $<"
	$(Q)$(CC) $(ALL_CFLAGS) -I$(GEN) -fsyntax-only -x c $<
FORCE:

.PHONY: print-lib-src
print-lib-src:
	@echo $(LIB_SRC)

fmt:
	clang-format -i $(FMT_SRC)

fmt-check:
	@out=$$(for f in $(FMT_SRC); do \
		clang-format --dry-run -Werror $$f 2>&1 >/dev/null | head -1; done); \
	if [ -n "$$out" ]; then echo "$$out"; echo "run 'make fmt'"; exit 1; fi

# The binary, its man page and its bash completion (where bash-completion looks for it).
install: benchline man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 benchline $(DESTDIR)$(PREFIX)/bin/benchline
	install -m 644 $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/benchline.1
	install -m 644 $(COMPLETION) $(DESTDIR)$(PREFIX)/share/bash-completion/completions/benchline

# `make deb`: the Debian package build/benchline_VERSION_ARCH.deb (.dist/deb.sh; docs/install.md),
# its binary built in build/deb with Debian's hardening flags (dpkg-buildflags) when dpkg-dev is
# there. `make dist`: the source tarball build/benchline-VERSION.tar.gz (.dist/dist.sh).
DEB_BUILD = build/deb
deb:
	$(MAKE) BUILD=$(DEB_BUILD) \
		CFLAGS="$$(dpkg-buildflags --get CFLAGS 2>/dev/null || echo -O2 -g) $$(dpkg-buildflags --get CPPFLAGS 2>/dev/null)" \
		LDFLAGS="$$(dpkg-buildflags --get LDFLAGS 2>/dev/null)" $(DEB_BUILD)/benchline
	sh .dist/deb.sh $(DEB_BUILD)/benchline build

dist:
	sh .dist/dist.sh build

clean:
	rm -rf build benchline

# --- web (issue 5): embedded assets, libmicrohttpd, the browser test's packages ---
WEB_ASSETS = $(sort $(wildcard web/assets/*))
DEPS_PKGS += chromium curl wrk
LDLIBS += $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd) -lpthread
$(LIB): $(GEN)/web_assets.o

$(GEN)/web_assets.c: web/embed-assets.sh $(WEB_ASSETS)
	@mkdir -p $(GEN)
	$(Q)sh web/embed-assets.sh $@ $(WEB_ASSETS)

$(GEN)/web_assets.o: $(GEN)/web_assets.c web/web.h
	$(Q)$(CC) $(ALL_CFLAGS) -Iweb -c -o $@ $<

.PHONY: browser bench-web
# The web budgets of §12 (wrk, curl); tests/bench/run.sh may call tests/bench/web.sh too.
bench-web: benchline
	sh tests/bench/web.sh

browser: benchline
	BENCHLINE=$(CURDIR)/$(BIN) prove -v tests/browser/chromium.t

# The screenshots docs/web.md shows (docs/images/, committed): the browser test's, taken on the
# demo database, written there instead of tests/output/.
.PHONY: docs-images
docs-images: benchline
	mkdir -p docs/images
	BENCHLINE=$(CURDIR)/$(BIN) BENCHLINE_SCREENSHOTS=$(CURDIR)/docs/images prove -v \
		tests/browser/chromium.t
