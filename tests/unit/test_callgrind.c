/*
 * Unit tests for benchline's reader of the callgrind format (ingest/bench/callgrind.c): a
 * profile made here by running callgrind on a small program, checked against
 * callgrind_annotate's own reading of the same file; then hand-written files for each feature
 * of the format (compressed names, inlined files, calls, relative and hex positions, several
 * parts, no totals) and for each way a file can be broken, refused with its line number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"
#include <jansson.h>

#include "detect/confirm/confirm.h"
#include "ingest/bench/bench.h"

static const struct bench_profile_fn *find_fn(const struct bench_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nfns; i++)
		if (!strcmp(p->fns[i].name, name))
			return &p->fns[i];
	return NULL;
}

static void parse_ok(struct bench_profile *p, const char *text)
{
	struct bl_error err = BL_ERROR_INIT;
	if (bench_profile_parse(p, "t.out", text, strlen(text), &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
}

/* Runs a shell command; its exit status. */
static int sh(const char *cmd)
{
	int rc = system(cmd);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/*
 * A real profile: a program whose `work` does the loop and `twice` calls it twice, compiled
 * and run under callgrind here. benchline's totals are callgrind_annotate's: the program's
 * total, and each function's self cost (callgrind_annotate's default) and inclusive cost
 * (--inclusive=yes), matched by file and name.
 */
static void a_real_profile_reads_as_callgrind_annotate_reads_it(void **state)
{
	char dir[] = "/tmp/test_callgrind.XXXXXX";
	struct strbuf cmd = STRBUF_INIT, file = STRBUF_INIT, path = STRBUF_INIT;
	struct bench_profile p;
	struct bl_error err = BL_ERROR_INIT;
	const struct bench_profile_fn *work, *twice;
	FILE *f;
	char line[512];
	int checked = 0;
	(void)state;
	if (sh("command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null")) {
		/* make deps installs valgrind: without it this machine cannot run the check */
		fail_msg("valgrind is not installed (make deps installs it)");
	}
	assert_non_null(mkdtemp(dir));
	strbuf_addf(&path, "%s/prog.c", dir);
	f = fopen(path.buf, "w");
	assert_non_null(f);
	fputs("#include <stdio.h>\n"
	      "__attribute__((noinline)) static unsigned work(unsigned n)\n"
	      "{ unsigned s = 0; for (unsigned i = 0; i < n; i++) s += i * i; return s; }\n"
	      "__attribute__((noinline)) static unsigned twice(unsigned n)\n"
	      "{ return work(n) + work(n / 2); }\n"
	      "int main(void) { printf(\"%u\\n\", twice(100000)); return 0; }\n",
	      f);
	fclose(f);
	strbuf_addf(&cmd,
		    "cd %s && cc -O1 -g -o prog prog.c && valgrind --tool=callgrind"
		    " --callgrind-out-file=cg.out ./prog >/dev/null 2>&1 &&"
		    " callgrind_annotate --threshold=100 cg.out >self.txt 2>/dev/null &&"
		    " callgrind_annotate --threshold=100 --inclusive=yes cg.out >incl.txt"
		    " 2>/dev/null",
		    dir);
	assert_int_equal(sh(cmd.buf), 0);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/cg.out", dir);
	if (read_file_capped(&file, path.buf, (size_t)1 << 30, &err) ||
	    bench_profile_parse(&p, path.buf, file.buf, file.len, &err))
		fail_msg("%s", err.msg.buf);
	assert_true(p.has_total);
	assert_string_equal(p.events[0], "Ir");
	work = find_fn(&p, "work");
	twice = find_fn(&p, "twice");
	assert_non_null(work);
	assert_non_null(twice);
	/* work does the loop: most of the program, all in its own code */
	assert_true(work->self > p.total / 2);
	assert_true(work->inclusive == work->self);
	/* twice's inclusive cost is its own plus both calls of work */
	assert_true(twice->inclusive == twice->self + work->self);
	{
		uint64_t sum = 0;
		for (size_t i = 0; i < p.nfns; i++)
			sum += p.fns[i].self;
		assert_true(sum == p.total);
	}
	/* callgrind_annotate's lines: "  900,017 (87.64%)  FILE:FUNCTION [OBJECT]" */
	for (int pass = 0; pass < 2; pass++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, pass ? "incl.txt" : "self.txt");
		f = fopen(path.buf, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			char digits[64], where[400], *colon;
			size_t k = 0;
			const struct bench_profile_fn *fn;
			unsigned long long want;
			if (sscanf(line, " %63[0-9,] (%*[^)]) %399s", digits, where) != 2)
				continue;
			if (strstr(line, "PROGRAM TOTALS")) {
				for (char *c = digits; *c; c++)
					if (*c != ',')
						digits[k++] = *c;
				digits[k] = '\0';
				assert_true(strtoull(digits, NULL, 10) == p.total);
				checked++;
				continue;
			}
			if (!(colon = strrchr(where, ':')) ||
			    (strcmp(colon + 1, "work") && strcmp(colon + 1, "twice")))
				continue;
			for (char *c = digits; *c; c++)
				if (*c != ',')
					digits[k++] = *c;
			digits[k] = '\0';
			want = strtoull(digits, NULL, 10);
			fn = find_fn(&p, colon + 1);
			assert_non_null(fn);
			assert_true((pass ? fn->inclusive : fn->self) == want);
			checked++;
		}
		fclose(f);
	}
	/* the total twice, and work and twice in both readings */
	assert_true(checked >= 6);
	bench_profile_release(&p);
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "rm -rf %s", dir);
	sh(cmd.buf);
	strbuf_release(&cmd);
	strbuf_release(&file);
	strbuf_release(&path);
	bl_error_release(&err);
}

/* Names compressed once and referred to by id after; an inlined file (fi=) leaves the costs
 * with fn=; a call's cost goes to the caller's inclusive cost only; two parts add up. */
static void compressed_names_inlined_files_and_calls(void **state)
{
	struct bench_profile p;
	const struct bench_profile_fn *a, *b;
	(void)state;
	parse_ok(&p, "# callgrind format\n"
		     "version: 1\n"
		     "positions: line\n"
		     "events: Ir Dr\n"
		     "part: 1\n"
		     "ob=(1) /bin/prog\n"
		     "fl=(1) a.c\n"
		     "fn=(1) alpha\n"
		     "10 100 7\n"
		     "fi=(2) inline.h\n"
		     "+2 50\n"
		     "fe=(1)\n"
		     "* 5\n"
		     "cfi=(3) b.c\n"
		     "cfn=(2) beta\n"
		     "calls=3 20\n"
		     "12 300 9\n"
		     "fl=(3)\n"
		     "fn=(2)\n"
		     "20 300\n"
		     "part: 2\n"
		     "fl=(1)\n"
		     "fn=(1)\n"
		     "0x1f 45\n"
		     "totals: 800 16\n");
	assert_int_equal((int)p.nevents, 2);
	assert_true(p.total == 800);
	a = find_fn(&p, "alpha");
	b = find_fn(&p, "beta");
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a->file, "a.c");
	assert_string_equal(a->object, "/bin/prog");
	assert_string_equal(b->file, "b.c");
	assert_true(a->self == 100 + 50 + 5 + 45);
	assert_true(a->inclusive == a->self + 300);
	assert_true(b->self == 300 && b->inclusive == 300);
	assert_int_equal((int)p.nfns, 2);
	bench_profile_release(&p);
}

/* Without totals: or summary:, the total is every self cost; "positions: instr line" lines
 * lead with two subpositions; plain (uncompressed) names; jump lines carry no cost. */
static void missing_totals_two_positions_and_jumps(void **state)
{
	struct bench_profile p;
	(void)state;
	parse_ok(&p, "positions: instr line\n"
		     "events: Ir\n"
		     "fl=main.c\n"
		     "fn=main\n"
		     "0x400000 3 10\n"
		     "+4 * 20\n"
		     "jump=2 +8\n"
		     "+8 5\n"
		     "+8 5 30\n"
		     "fn=helper\n"
		     "-16 -2 1\n");
	assert_false(p.has_total);
	assert_true(p.total == 61);
	assert_true(find_fn(&p, "main")->self == 60);
	assert_true(find_fn(&p, "helper")->self == 1);
	bench_profile_release(&p);
}

/* Each broken file is refused with the line that broke it, and nothing is kept. */
static void broken_files_are_refused_with_their_line(void **state)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
	    {"fn=main\n10 5\n", "t.out:2: a cost line before events:"},
	    {"events: Ir\n10 5\n", "t.out:2: a cost line before fn="},
	    {"events: Ir\nfn=(4)\n",
	     "t.out:2: a compressed name is used before it is given: '(4)'"},
	    {"events: Ir\nfn=(x) f\n",
	     "t.out:2: a compressed name's id is not a number in parentheses: '(x) f'"},
	    {"events: Ir\nfn=(1) f\nfn=(1) g\n",
	     "t.out:3: a compressed name's id is given twice: '(1) g'"},
	    {"events: Ir\nfn=f\n10 five\n", "t.out:3: a cost is not a number: 'five'"},
	    {"events: Ir\nfn=f\n10 1 2\n", "t.out:3: a cost line has more costs than events"},
	    {"events: Ir\nfn=f\ncfn=g\ncalls=1 5\n",
	     "t.out:5: calls= is not followed by its cost line"},
	    {"events: Ir\nfn=f\ncfn=g\ncalls=1 5\nfn=h\n",
	     "t.out:5: calls= is not followed by its cost line"},
	    {"events: Ir\ncalls=1 5\n", "t.out:2: calls= before fn= and cfn="},
	    {"events: Ir\nfn=f\nbogus=1\n", "t.out:3: an unknown position line: 'bogus=1'"},
	    {"events: Ir\nnot a line\n", "t.out:2: not a callgrind line: 'not a line'"},
	    {"events:\n", "t.out:1: events: names no event"},
	    {"events: Ir\nevents: Ir\n", "t.out:2: events: is given twice"},
	    {"positions: column\n", "t.out:1: positions: names an unknown position: 'column'"},
	    {"events: Ir\nfn=f\n99999999999999999999999 1\n",
	     "t.out:3: a cost line does not start with its position: '99999999999999999999999 1'"},
	    {"version: 1\n", "t.out: not a callgrind file (no events: line)"},
	    {"", "t.out: not a callgrind file (no events: line)"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bench_profile p;
		struct bl_error err = BL_ERROR_INIT;
		assert_int_equal(
		    bench_profile_parse(&p, "t.out", bad[i].text, strlen(bad[i].text), &err),
		    BL_EINVALID);
		assert_string_equal(err.msg.buf, bad[i].message);
		assert_int_equal((int)p.nfns, 0);
		assert_null(p.fns);
		bl_error_release(&err);
	}
	/* a NUL byte is no text */
	{
		struct bench_profile p;
		struct bl_error err = BL_ERROR_INIT;
		static const char nul[] = "events: Ir\nfn=f\0g\n";
		assert_int_equal(bench_profile_parse(&p, "t.out", nul, sizeof(nul) - 1, &err),
				 BL_EINVALID);
		assert_string_equal(err.msg.buf, "t.out:2: a NUL byte");
		bl_error_release(&err);
	}
}

/*
 * Two profiles of one benchmark compared (§9.7): functions matched by name and by file
 * relative to each side's worktree; ranked by the self instructions added, as shares of the
 * base's total with fixed work, else as changes of each side's own share; only those that
 * added any, at most 10; JSON and Markdown.
 */
static void two_profiles_compared(void **state)
{
	struct bench_profile base, head;
	struct confirm_profile cp;
	struct strbuf text = STRBUF_INIT, md = STRBUF_INIT;
	json_t *j;
	char *dumped;
	(void)state;
	strbuf_addstr(&text, "events: Ir\nfl=/w/a/src/x.c\nfn=work\n1 1000\nfn=main\n2 100\n"
			     "cfn=work\ncalls=1 1\n3 1000\n");
	/* twelve small functions that will grow by 1 to 12 */
	for (int i = 1; i <= 12; i++)
		strbuf_addf(&text, "fn=f%02d\n1 100\n", i);
	parse_ok(&base, text.buf);
	strbuf_reset(&text);
	strbuf_addstr(&text, "events: Ir\nfl=/w/b/src/x.c\nfn=work\n1 1200\nfn=main\n2 100\n"
			     "cfn=work\ncalls=1 1\n3 1200\nfn=helper\n4 50\n");
	for (int i = 1; i <= 12; i++)
		strbuf_addf(&text, "fn=f%02d\n1 %d\n", i, 100 + i);
	parse_ok(&head, text.buf);
	assert_true(base.total == 2300 && head.total == 2628);

	confirm_profile_compare(&cp, &base, &head, 1, "/w/a", "/w/b/");
	assert_int_equal((int)cp.nfunctions, 10);
	assert_string_equal(cp.functions[0].function, "work"); /* +200: the most */
	assert_string_equal(cp.functions[0].file, "src/x.c");
	assert_true(cp.functions[0].base_self == 1000 && cp.functions[0].head_self == 1200);
	assert_true(cp.functions[0].self_share == 200.0 / 2300);
	assert_true(cp.functions[0].inclusive_share == 200.0 / 2300);
	assert_string_equal(cp.functions[1].function, "helper"); /* only at the head: +50 */
	assert_true(cp.functions[1].base_self == 0);
	assert_string_equal(cp.functions[2].function, "f12");
	assert_string_equal(cp.functions[9].function, "f05"); /* f04 to f01 left out */
	/* main's self is the same: it is not there */
	for (size_t i = 0; i < cp.nfunctions; i++)
		assert_string_not_equal(cp.functions[i].function, "main");

	cp.benchmark = xstrdup("checksum");
	cp.metric = xstrdup("instructions");
	j = confirm_profile_json(&cp);
	dumped = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
	assert_non_null(strstr(dumped, "\"base_total\":2300,\"benchmark\":\"checksum\","
				       "\"fixed_work\":true,\"functions\":[{\"base_self\":1000,"
				       "\"file\":\"src/x.c\",\"function\":\"work\","
				       "\"head_self\":1200,"));
	free(dumped);
	json_decref(j);
	confirm_profile_markdown(&md, &cp);
	assert_non_null(strstr(md.buf, "<details><summary>where the extra instructions went: "
				       "checksum</summary>"));
	assert_non_null(strstr(md.buf, "| work | src/x.c | +8.70% | +8.70% |"));
	confirm_profile_release(&cp);

	/* not fixed work: each side's own share; work's went from 1000/2300 to 1200/2628 */
	confirm_profile_compare(&cp, &base, &head, 0, "/w/a", "/w/b");
	assert_false(cp.fixed_work);
	assert_string_equal(cp.functions[0].function, "work");
	assert_true(cp.functions[0].self_share == 1200.0 / 2628 - 1000.0 / 2300);
	assert_string_equal(cp.functions[1].function, "helper");
	assert_true(cp.functions[1].self_share == 50.0 / 2628);
	for (size_t i = 0; i < cp.nfunctions; i++)
		assert_true(cp.functions[i].self_share > 0);
	confirm_profile_release(&cp);

	/* a function adding less than 0.01% of the base's total explains nothing: left out */
	bench_profile_release(&base);
	bench_profile_release(&head);
	parse_ok(&base, "events: Ir\nfn=big\n1 1000000\nfn=tiny\n1 10\nfn=small\n1 10\n");
	parse_ok(&head, "events: Ir\nfn=big\n1 1000000\nfn=tiny\n1 99\nfn=small\n1 111\n");
	confirm_profile_compare(&cp, &base, &head, 1, NULL, NULL);
	assert_int_equal((int)cp.nfunctions, 1); /* small: +101 of 1000020, tiny: +89 */
	assert_string_equal(cp.functions[0].function, "small");
	confirm_profile_release(&cp);
	bench_profile_release(&base);
	bench_profile_release(&head);
	parse_ok(&base, text.buf); /* the head of the cases above */
	strbuf_reset(&text);
	strbuf_addstr(&text, "events: Ir\nfl=/w/a/src/x.c\nfn=work\n1 1000\nfn=main\n2 100\n"
			     "cfn=work\ncalls=1 1\n3 1000\n");
	for (int i = 1; i <= 12; i++)
		strbuf_addf(&text, "fn=f%02d\n1 100\n", i);
	parse_ok(&head, text.buf);

	/* the head does less: nothing added, and the Markdown says so */
	confirm_profile_compare(&cp, &base, &head, 1, "/w/b", "/w/a");
	assert_int_equal((int)cp.nfunctions, 0);
	strbuf_reset(&md);
	confirm_profile_markdown(&md, &cp);
	assert_non_null(strstr(md.buf, "No function executes more instructions at the head."));
	confirm_profile_release(&cp);
	bench_profile_release(&base);
	bench_profile_release(&head);
	strbuf_release(&text);
	strbuf_release(&md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_real_profile_reads_as_callgrind_annotate_reads_it),
	    cmocka_unit_test(compressed_names_inlined_files_and_calls),
	    cmocka_unit_test(missing_totals_two_positions_and_jumps),
	    cmocka_unit_test(broken_files_are_refused_with_their_line),
	    cmocka_unit_test(two_profiles_compared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
