#!/bin/sh
# tests/corpora (docs/detection.md, "Measured on real histories") on tiny histories written
# here, never the shared data: asv-django.pl and gab.pl write records benchline ingests, in
# revision (entry) order, with the machine names and metrics the page describes; measure.sh's
# figures on them (one planted step per Series, one slower Suspect each; the within-one-record
# match of asv's ranges); a missing corpus is skipped, and `make bench` skips the section
# without data.
. "$(dirname "$0")/lib.sh"

CORPORA=$ROOT/tests/corpora

# A fake asv gh-pages tree: revisions 10..19. Revision 11's hash is short (the converter
# synthesizes one), revision 13's date is before revision 12's and revision 16's equals
# revision 15's (committed_at must still grow with the revision). bench.a and bench.b step from
# 1.0 to 1.5 at revision 15; the macOS graph is flat with a null point at 13.
test_expect 'setup: a tiny asv history and a tiny data.js' '
	G=data/asv_django/gh-pages &&
	mkdir -p $G/graphs/branch-main/machine-ubuntu-latest/python-3.12 \
		$G/graphs/branch-main/machine-macos-12/python-3.10 \
		data/gab_histories/github-action-benchmark_self &&
	perl -e "
		my (@h, @d);
		for my \$r (9 .. 19) {
			push @h, qq(\"\$r\": \") . (\$r == 11 ? q(abc123) : \$r x 20) . q(\");
			my \$t = 1700000000000 + \$r * 86400000;
			\$t = 1700000000000 + 11 * 86400000 - 3600000 if \$r == 13;
			\$t = 1700000000000 + 15 * 86400000 if \$r == 16;
			push @d, qq(\"\$r\": \$t);
		}
		print q({\"project\": \"fake\", \"revision_to_hash\": {), join(q(, ), @h),
		      q(}, \"revision_to_date\": {), join(q(, ), @d), qq(}}\n);
	" >$G/index.json &&
	U=$G/graphs/branch-main/machine-ubuntu-latest/python-3.12 &&
	step="[[10, 1.0], [11, 1.01], [12, 0.99], [13, 1.0], [14, 1.0], [15, 1.5], [16, 1.51], [17, 1.49], [18, 1.5], [19, 1.5]]" &&
	echo "$step" >$U/bench.a.json &&
	echo "$step" >$U/bench.b.json &&
	echo "[{\"name\": \"bench.a\", \"last_rev\": 19}]" >$U/summary.json &&
	echo "[[10, 2.0], [11, 2.02], [12, 1.98], [13, null], [14, 2.0], [15, 2.01]]" \
		>$G/graphs/branch-main/machine-macos-12/python-3.10/bench.c.json &&
	cat >$G/regressions.json <<-\EOF &&
	{"regressions": [
	 ["bench.a", "graphs/branch-main/machine-ubuntu-latest/python-3.12/bench.a.json",
	  {"machine": "ubuntu-latest", "python": "3.12"}, null, 1.5, 1.0, [[14, 15, 1.0, 1.5]]],
	 ["bench.b", "graphs/branch-main/machine-ubuntu-latest/python-3.12/bench.b.json",
	  {"machine": "ubuntu-latest", "python": "3.12"}, null, 1.5, 1.0, [[13, 14, 1.0, 1.0], [12, 13, 0.99, 1.0]]],
	 ["bench.c", "graphs/branch-main/machine-macos-12/python-3.10/bench.c.json",
	  {"machine": "macos-12", "python": "3.10"}, null, 2.0, 2.0, [[null, 14, 2.0, 2.0]]]
	]}
	EOF
	perl -e "
		sub entry {
			my (\$id, \$i, @b) = @_;
			my \$benches = join q(, ), map {
				qq({\"name\": \"\$_->[0]\", \"value\": \$_->[1], \"unit\": \"\$_->[2]\", \"range\": \"+/- 1\"})
			} @b;
			return qq({\"commit\": {\"id\": \"\$id\", \"message\": \"m\", \"timestamp\": \"2020-01-01T00:00:00+09:00\"},)
			    . qq( \"date\": ) . (1600000000000 + \$i * 3600000) . qq(, \"tool\": \"t\", \"benches\": [\$benches]});
		}
		my @js = map { entry(q(b) x 39 . \$_, \$_, [q(fib(10)), (1000, 1010, 990, 1000, 1000, 700, 705)[\$_], q(ops/sec)]) } 0 .. 6;
		my @cpp = map { entry(q(c) x 39 . (\$_ == 3 ? 2 : \$_), 10 + \$_, [q(fib), (100, 101, 99, 99, 100)[\$_], q(ns/iter)]) } 0 .. 4;
		my @go = map { entry(q(d) x 39 . \$_, 20 + \$_,
			[q(BenchmarkFib20WithAuxMetric), 50 + \$_ % 2, q(ns/op\\\\t         4.000 auxMetricUnits)],
			[q(BenchmarkFib20WithAuxMetric - auxMetricUnits), 4, q(auxMetricUnits)]) } 0 .. 2;
		print qq(window.BENCHMARK_DATA = {\n  \"lastUpdate\": 1, \"entries\": {\n),
		    qq(\"Benchmark.js Benchmark\": [), join(q(,), @js), qq(],\n),
		    qq(\"C++ Benchmark\": [), join(q(,), @cpp), qq(],\n),
		    qq(\"Go Benchmark\": [), join(q(,), @go), qq(]\n}, \"repoUrl\": \"x\"}\n);
	" >data/gab_histories/github-action-benchmark_self/data.js &&
	grep -q "ns/op\\\\t" data/gab_histories/github-action-benchmark_self/data.js
'

# proj FILE: one line per record: machine, benchmark, commit, committed_at, started_at and each
# metric as name=kind/unit/better/median-or-value.
proj() {
	perl -MJSON::PP -ne '
		my $r = decode_json($_);
		my $m = join " ", map { my $x = $r->{metrics}{$_};
			"$_=" . join("/", $x->{kind} // "timed", $x->{unit}, $x->{better} // "-",
				$x->{median} // $x->{value}) . (defined $x->{p95} && $x->{p95} != $x->{median} ? "!p95" : "")
		} sort keys %{ $r->{metrics} };
		print join("\t", $r->{machine}, $r->{benchmark}, $r->{source}{commit},
			$r->{source}{committed_at}, $r->{started_at}, $m), "\n";
		die "source_hash differs\n" unless $r->{source}{source_hash} eq $r->{source}{commit};
		die "harness\n" unless $r->{harness_version} == 1 && $r->{schema} == 1;
	' "$1"
}

test_expect 'asv-django.pl: one record per point in revision order, committed_at growing, null and summary left out' '
	perl "$CORPORA/asv-django.pl" --data data --out asv.jsonl --ranges ranges.json 2>asv.log &&
	grep -q "3 graphs, 25 records, 1 null points left out, 1 revisions with a synthesized hash, 0 undated, 2 dates moved forward" asv.log &&
	proj asv.jsonl | grep "	bench\.a	" >actual &&
	cat >expect <<-\EOF &&
	ubuntu-latest-py3.12	bench.a	1010101010101010101010101010101010101010	2023-11-24T22:13:20Z	2023-11-24T22:13:20Z	time_s=timed/s/-/1
	ubuntu-latest-py3.12	bench.a	a2a476edc10729829dfb716343c6511abfdfcfe5	2023-11-25T22:13:20Z	2023-11-25T22:13:20Z	time_s=timed/s/-/1.01
	ubuntu-latest-py3.12	bench.a	1212121212121212121212121212121212121212	2023-11-26T22:13:20Z	2023-11-26T22:13:20Z	time_s=timed/s/-/0.99
	ubuntu-latest-py3.12	bench.a	1313131313131313131313131313131313131313	2023-11-26T22:13:21Z	2023-11-25T21:13:20Z	time_s=timed/s/-/1
	ubuntu-latest-py3.12	bench.a	1414141414141414141414141414141414141414	2023-11-28T22:13:20Z	2023-11-28T22:13:20Z	time_s=timed/s/-/1
	ubuntu-latest-py3.12	bench.a	1515151515151515151515151515151515151515	2023-11-29T22:13:20Z	2023-11-29T22:13:20Z	time_s=timed/s/-/1.5
	ubuntu-latest-py3.12	bench.a	1616161616161616161616161616161616161616	2023-11-29T22:13:21Z	2023-11-29T22:13:20Z	time_s=timed/s/-/1.51
	ubuntu-latest-py3.12	bench.a	1717171717171717171717171717171717171717	2023-12-01T22:13:20Z	2023-12-01T22:13:20Z	time_s=timed/s/-/1.49
	ubuntu-latest-py3.12	bench.a	1818181818181818181818181818181818181818	2023-12-02T22:13:20Z	2023-12-02T22:13:20Z	time_s=timed/s/-/1.5
	ubuntu-latest-py3.12	bench.a	1919191919191919191919191919191919191919	2023-12-03T22:13:20Z	2023-12-03T22:13:20Z	time_s=timed/s/-/1.5
	EOF
	test_cmp expect actual &&
	proj asv.jsonl | cut -f1,2 | sort | uniq -c | sed "s/^ *//" >actual &&
	cat >expect <<-\EOF &&
	5 macos-12-py3.10	bench.c
	10 ubuntu-latest-py3.12	bench.a
	10 ubuntu-latest-py3.12	bench.b
	EOF
	test_cmp expect actual
'

test_expect 'asv-django.pl: the ranges name the Series and the commits of both ends' '
	json_get ranges.json "join qq(\n), map { join q( ), @\$_{qw(machine benchmark metric)},
		\$_->{before} // q(null), \$_->{after}, \$_->{before_rev} // q(null), \$_->{after_rev} } @\$j" >actual &&
	cat >expect <<-\EOF &&
	ubuntu-latest-py3.12 bench.a time_s 1414141414141414141414141414141414141414 1515151515151515151515151515151515151515 14 15
	ubuntu-latest-py3.12 bench.b time_s 1313131313131313131313131313131313131313 1414141414141414141414141414141414141414 13 14
	ubuntu-latest-py3.12 bench.b time_s 1212121212121212121212121212121212121212 1313131313131313131313131313131313131313 12 13
	macos-12-py3.10 bench.c time_s null 1414141414141414141414141414141414141414 null 14
	EOF
	test_cmp expect actual
'

test_expect 'benchline ingests the asv records and lists each Series in revision order' '
	bl --db asv.db ingest asv.jsonl >out &&
	test "$(grep -c ": stands$" out)" = 25 &&
	bl --db asv.db records --json --machine ubuntu-latest-py3.12 --benchmark bench.a >rec.json &&
	json_get rec.json "join q( ), map { substr(\$_->{commit}, 0, 2) } @\$j" >actual &&
	echo "10 a2 12 13 14 15 16 17 18 19" >expect &&
	test_cmp expect actual
'

test_expect 'gab.pl: a machine per suite, time and rate units, counted custom units, the entries in order' '
	perl "$CORPORA/gab.pl" --data data --out gab.jsonl 2>gab.log &&
	grep -q "3 suites, 18 records (7 throughput, 8 time, 3 value)" gab.log &&
	proj gab.jsonl | cut -f1,2,3,4,6 >actual &&
	B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb C=ccccccccccccccccccccccccccccccccccccccc \
	D=ddddddddddddddddddddddddddddddddddddddd &&
	sed "s/\$B/$B/; s/\$C/$C/; s/\$D/$D/" >expect <<-\EOF &&
	gab-benchmark.js-benchmark	fib(10)	$B0	2020-09-13T12:26:40Z	throughput=timed/ops/sec/higher/1000
	gab-benchmark.js-benchmark	fib(10)	$B1	2020-09-13T13:26:40Z	throughput=timed/ops/sec/higher/1010
	gab-benchmark.js-benchmark	fib(10)	$B2	2020-09-13T14:26:40Z	throughput=timed/ops/sec/higher/990
	gab-benchmark.js-benchmark	fib(10)	$B3	2020-09-13T15:26:40Z	throughput=timed/ops/sec/higher/1000
	gab-benchmark.js-benchmark	fib(10)	$B4	2020-09-13T16:26:40Z	throughput=timed/ops/sec/higher/1000
	gab-benchmark.js-benchmark	fib(10)	$B5	2020-09-13T17:26:40Z	throughput=timed/ops/sec/higher/700
	gab-benchmark.js-benchmark	fib(10)	$B6	2020-09-13T18:26:40Z	throughput=timed/ops/sec/higher/705
	gab-cpp-benchmark	fib	$C0	2020-09-13T22:26:40Z	time=timed/ns/iter/lower/100
	gab-cpp-benchmark	fib	$C1	2020-09-13T23:26:40Z	time=timed/ns/iter/lower/101
	gab-cpp-benchmark	fib	$C2	2020-09-14T00:26:40Z	time=timed/ns/iter/lower/99
	gab-cpp-benchmark	fib	$C2	2020-09-14T01:26:40Z	time=timed/ns/iter/lower/99
	gab-cpp-benchmark	fib	$C4	2020-09-14T02:26:40Z	time=timed/ns/iter/lower/100
	gab-go-benchmark	BenchmarkFib20WithAuxMetric	$D0	2020-09-14T08:26:40Z	time=timed/ns/op/lower/50
	gab-go-benchmark	BenchmarkFib20WithAuxMetric - auxMetricUnits	$D0	2020-09-14T08:26:40Z	value=counted/auxMetricUnits/-/4
	gab-go-benchmark	BenchmarkFib20WithAuxMetric	$D1	2020-09-14T09:26:40Z	time=timed/ns/op/lower/51
	gab-go-benchmark	BenchmarkFib20WithAuxMetric - auxMetricUnits	$D1	2020-09-14T09:26:40Z	value=counted/auxMetricUnits/-/4
	gab-go-benchmark	BenchmarkFib20WithAuxMetric	$D2	2020-09-14T10:26:40Z	time=timed/ns/op/lower/50
	gab-go-benchmark	BenchmarkFib20WithAuxMetric - auxMetricUnits	$D2	2020-09-14T10:26:40Z	value=counted/auxMetricUnits/-/4
	EOF
	test_cmp expect actual
'

test_expect 'benchline ingests the gab records; the repeated commit is one key' '
	bl --db gab.db ingest gab.jsonl >out &&
	test "$(grep -c ": stands$" out)" = 17 &&
	test "$(bl --db gab.db records --json | json_get - "scalar @\$j")" = 17
'

# The alerts: bench.a and bench.b step together at revision 15, one run-wide alert whose
# reference is revision 14. bench.a's range (14..15) has it before its first new record;
# bench.b's planted range (13..14) is matched within one record but starts a record early, so
# that reference is not before it. The gab step (700, 705: one record after it) is pending.
test_expect 'measure.sh: one slower Suspect per planted step, the rate, the ranges within one record, the alerts' '
	BENCHLINE_DATA=/nonexistent sh "$CORPORA/measure.sh" --data data --json >m.json &&
	json_get m.json "join qq(\n), map { my \$c = \$_; join q( ), map { \$_ . q(=) . (\$c->{\$_} // q(null)) }
		qw(corpus records_converted records_standing series series_judged records_judged
		   suspects_slower slower_per_100 order_ok order_checked ranges ranges_on_series
		   ranges_matched slower_alerts slower_alerts_run_wide slower_alerts_transient
		   slower_alerts_pending slower_alerts_per_100 ranges_matched_by_alerts
		   ranges_reference_before) } @{\$j->{corpora}}" >actual &&
	cat >expect <<-\EOF &&
	corpus=asv-django records_converted=25 records_standing=25 series=3 series_judged=3 records_judged=25 suspects_slower=2 slower_per_100=8 order_ok=3 order_checked=3 ranges=4 ranges_on_series=4 ranges_matched=2 slower_alerts=1 slower_alerts_run_wide=1 slower_alerts_transient=0 slower_alerts_pending=0 slower_alerts_per_100=4 ranges_matched_by_alerts=2 ranges_reference_before=1
	corpus=gab records_converted=18 records_standing=17 series=4 series_judged=3 records_judged=14 suspects_slower=1 slower_per_100=7.14 order_ok=4 order_checked=4 ranges=null ranges_on_series=null ranges_matched=null slower_alerts=0 slower_alerts_run_wide=0 slower_alerts_transient=0 slower_alerts_pending=1 slower_alerts_per_100=0 ranges_matched_by_alerts=null ranges_reference_before=null
	EOF
	test_cmp expect actual &&
	json_get m.json "join qq(\n), @{\$j->{corpora}[0]{ranges_unmatched}}" >actual &&
	cat >expect <<-\EOF &&
	ubuntu-latest-py3.12/bench.b 12..13
	macos-12-py3.10/bench.c null..14
	EOF
	test_cmp expect actual
'

test_expect 'measure.sh prints one line per figure' '
	sh "$CORPORA/measure.sh" --data data gab >out &&
	grep -x "gab: slower Suspects per 100 records: 7.14" out &&
	grep -x "gab: Series: 4 (3 judged, 14 records on them)" out &&
	grep -x "gab: order: 4 of 4 (machine, benchmark) groups in the converter'"'"'s order" out
'

test_expect 'a corpus whose files are missing is skipped; a missing data directory is an error' '
	mkdir empty &&
	sh "$CORPORA/measure.sh" --data empty >out &&
	cat >expect <<-\EOF &&
	asv-django: skipped (its files are not in empty)
	gab: skipped (its files are not in empty)
	EOF
	test_cmp expect out &&
	expect_exit 2 sh "$CORPORA/measure.sh" --data no-such-dir 2>err &&
	grep -q "no data directory no-such-dir" err
'

test_expect 'make bench skips the corpora without data and does not fail' '
	BENCHLINE_DATA=$TMP/no-such-dir BENCH_SECTIONS=corpora sh "$ROOT/tests/bench/run.sh" >out &&
	grep -x "corpora: skipped (no ../shared/data)" out
'
test_done
