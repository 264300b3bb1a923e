#!/usr/bin/perl
# The cases of tests/pg/compare-q2.sh: each runs named statements of sql/detect.sql,
# sql/alerts.sql and sql/regressions.sql with bound parameters on the SQLite file (its
# texts, sqlite3's .parameter) and their PostgreSQL texts (in PG_SQL_DIR, as `store/embed-sql.sh
# --pg-dir` writes them: sql/pg/'s overrides and the derived rest) on the PostgreSQL copy of the
# same rows (PREPARE and EXECUTE with the values as untyped literals, as the C code sends
# text), and compares what comes back: the same rows in the same order (as a multiset where
# the statement names no order), each value the same (integers and texts exactly, reals as the
# same double, blobs as the same bytes, PostgreSQL's booleans as SQLite's 1 and 0, NULL as
# NULL).
# A case that writes runs in a transaction rolled back on both; after each write it compares
# the rows changed (SQLite's changes(), psql's ROW_COUNT), the new id where the C code reads it
# (last_insert_rowid() against RETURNING), and then the checks: queries that read the tables
# written, in SQL both accept. Every named statement of the three files must have its text in
# both dialects and run in a case: one that does not is a failure ("not ok FILE NAME").
#
#   compare-q2.pl SQLITE_FILE URL PG_SQL_DIR
use strict;
use warnings;
use POSIX qw(strtod);

my ($sqlite, $url, $pg_sql) = @ARGV;
die "usage: compare-q2.pl SQLITE_FILE URL PG_SQL_DIR\n" unless defined $pg_sql;

# The named statements of a file: name => text (comment lines dropped, as prepare-all.pl).
sub statements {
	my ($file) = @_;
	my (%text, $name);
	open my $fh, '<', $file or die "cannot open '$file': $!\n";
	while (my $line = <$fh>) {
		if ($line =~ /^-- name: (\S+)/) {
			$name = $1;
			$text{$name} = '';
			next;
		}
		next if !defined $name || $line =~ /^--/;
		$text{$name} .= $line;
	}
	for (values %text) {
		s/;\s*\z//;
	}
	return \%text;
}
my (%lite, %pg);
for my $f (qw(detect.sql alerts.sql regressions.sql)) {
	$lite{$f} = statements("sql/$f");
	$pg{$f} = statements("$pg_sql/$f");
}

# One value of the SQLite file (setup for the cases' parameters).
sub lite_value {
	my ($sql) = @_;
	open my $ps, '-|', 'sqlite3', $sqlite, $sql or die "cannot run sqlite3\n";
	my $v = <$ps>;
	close $ps;
	die "no value for: $sql\n" unless defined $v;
	chomp $v;
	return $v;
}

# Parameters: i:N an integer, r:X a real, t:S a text, b:HEX a blob, n NULL.
sub lite_literal {
	my ($p) = @_;
	return 'NULL' if $p eq 'n';
	my ($k, $v) = $p =~ /^([irtb]):(.*)\z/s or die "bad parameter '$p'\n";
	return $v if $k eq 'i' || $k eq 'r';
	return "X'$v'" if $k eq 'b';
	$v =~ s/'/''/g;
	return "'$v'";
}

sub pg_literal {
	my ($p) = @_;
	return 'NULL' if $p eq 'n';
	my ($k, $v) = $p =~ /^([irtb]):(.*)\z/s or die "bad parameter '$p'\n";
	$v = "\\x$v" if $k eq 'b';
	$v =~ s/'/''/g;
	return "'$v'";
}

# A dot-command argument in double quotes (sqlite3 reads C escapes there).
sub dot_arg {
	my ($s) = @_;
	$s =~ s/([\\"])/\\$1/g;
	$s =~ s/\n/\\n/g;
	return "\"$s\"";
}

sub run {
	my ($cmd, $script) = @_;
	my $in = "/tmp/compare-q2.$$.in";
	open my $fh, '>', $in or die "cannot write '$in': $!\n";
	print $fh $script;
	close $fh;
	my $line = join ' ', map { (my $a = $_) =~ s/'/'\\''/g; "'$a'" } @$cmd;
	my $out = `$line <'$in' 2>&1`;
	my $rc = $?;
	unlink $in;
	return ($rc, $out);
}

# sqlite3's quote mode: NULL, numbers, 'text' ('' inside), X'hex'; rows end at a newline
# outside quotes. Each value becomes [type, value].
sub parse_quote {
	my ($out) = @_;
	my (@rows, @row);
	pos($out) = 0;
	while (pos($out) < length $out) {
		if ($out =~ /\GNULL/gc) {
			push @row, ['null'];
		} elsif ($out =~ /\G'((?:[^']|'')*)'/gc) {
			(my $s = $1) =~ s/''/'/g;
			push @row, ['text', $s];
		} elsif ($out =~ /\GX'([0-9A-Fa-f]*)'/gc) {
			push @row, ['blob', lc $1];
		} elsif ($out =~ /\G(-?\d+)(?=[,\n]|\z)/gc) {
			push @row, ['int', $1];
		} elsif ($out =~ /\G(-?(?:\d+\.\d*|\d*\.\d+|\d+)(?:e[-+]?\d+)?|-?Inf)/gci) {
			push @row, ['real', $1];
		} else {
			die "cannot read sqlite3's output at: " . substr($out, pos($out), 40) . "\n";
		}
		if ($out =~ /\G,/gc) {
			next;
		} elsif ($out =~ /\G\n/gc || pos($out) >= length $out) {
			push @rows, [@row];
			@row = ();
		} else {
			die "cannot read sqlite3's output at: " . substr($out, pos($out), 40) . "\n";
		}
	}
	return \@rows;
}

# psql's CSV (NULL printed as \N, unquoted). Each value becomes ['pg', text] or ['null'].
sub parse_csv {
	my ($out) = @_;
	my (@rows, @row);
	pos($out) = 0;
	while (pos($out) < length $out) {
		if ($out =~ /\G"((?:[^"]|"")*)"/gc) {
			(my $s = $1) =~ s/""/"/g;
			push @row, ['pg', $s];
		} elsif ($out =~ /\G([^,"\n]*)/gc) {
			push @row, $1 eq '\\N' ? ['null'] : ['pg', $1];
		}
		if ($out =~ /\G,/gc) {
			next;
		} elsif ($out =~ /\G\n/gc || pos($out) >= length $out) {
			push @rows, [@row];
			@row = ();
		} else {
			die "cannot read psql's output at: " . substr($out, pos($out), 40) . "\n";
		}
	}
	return \@rows;
}

sub as_double {
	my ($s) = @_;
	my ($v, $unparsed) = strtod($s);
	return defined $unparsed && $unparsed == 0 ? $v : undef;
}

# Whether PostgreSQL's value (text) is SQLite's.
sub same_value {
	my ($l, $p) = @_;
	return $p->[0] eq 'null' if $l->[0] eq 'null';
	return 0 if $p->[0] eq 'null';
	my $t = $p->[1];
	if ($l->[0] eq 'text') {
		return $t eq $l->[1];
	} elsif ($l->[0] eq 'blob') {
		return lc($t) eq "\\x$l->[1]";
	} elsif ($l->[0] eq 'int') {
		return $l->[1] eq '1' if $t eq 't';
		return $l->[1] eq '0' if $t eq 'f';
		return 1 if $t eq $l->[1];
		my $d = as_double($t);
		return defined $d && $t =~ /^-?\d+(\.0*)?$/ && $d == $l->[1];
	} else {
		my ($a, $b) = (as_double($l->[1]), as_double($t));
		return defined $a && defined $b && $a == $b;
	}
}

sub show_row {
	my ($r) = @_;
	return join '|', map { $_->[0] eq 'null' ? 'NULL' : $_->[1] } @$r;
}

# A row's sort key for statements of no order (the value, whichever store's text it is).
sub row_key {
	my ($r) = @_;
	return join "\x1f", map {
		my $v = $_->[0] eq 'null' ? "\x00" : $_->[1];
		my $d = $_->[0] eq 'text' || $_->[0] eq 'blob' ? undef : as_double($v);
		defined $d ? sprintf('%.17g', $d) : $v;
	} @$r;
}

my ($passed, $failed) = (0, 0);

# The statements the cases ran, by file: every named statement of both dialects must be.
my %used;

# The parts of a script's output, each after the marker line "==N==" the script printed.
sub parts {
	my ($out) = @_;
	my @p = split /^==(\d+)==\n/m, $out, -1;
	shift @p; # before the first marker: nothing
	my %part = @p;
	return \%part;
}

# case NAME, {steps => [...], checks => [...], write => 0|1}
# A step is [FILE, STATEMENT, PARAMETER...], or SQL both take (a string); a step whose
# statement inserts a row the C code reads the id of is marked with a leading '+' on its name,
# one whose rows come in no order (the statement names none) with a leading '~': its rows are
# compared as a multiset.
sub case {
	my ($title, %c) = @_;
	# foreign keys on, as the store opens its file (ON DELETE CASCADE)
	my ($ls, $ps) = ("PRAGMA foreign_keys = ON;\n.mode quote\n", "\\set ON_ERROR_STOP 1\n");
	$ls .= "BEGIN;\n" if $c{write};
	$ps .= "BEGIN;\n";
	my $n = 0;
	my %unordered;
	for my $step (@{$c{steps}}, @{$c{checks} || []}) {
		$n++;
		$ls .= ".print ==$n==\n";
		$ps .= "\\echo ==$n==\n";
		if (!ref $step) {
			$ls .= "$step;\n";
			$ps .= "$step;\n";
			next;
		}
		my ($file, $name, @params) = @$step;
		my ($returning, $unordered) = (0, 0);
		while ($name =~ s/^([+~])//) {
			$returning = 1 if $1 eq '+';
			$unordered = 1 if $1 eq '~';
		}
		$unordered{$n} = $unordered;
		my $lt = $lite{$file}{$name} // die "no SQLite statement $name in $file\n";
		my $pt = $pg{$file}{$name} // die "no PostgreSQL statement $name in $pg_sql/$file\n";
		$used{$file}{$name} = 1;
		$ls .= ".parameter init\n";
		for my $i (1 .. @params) {
			$ls .= ".parameter set ?$i " . dot_arg(lite_literal($params[$i - 1])) . "\n";
		}
		$ls .= "$lt;\n";
		$ps .= "PREPARE q$n AS\n$pt;\n";
		$ps .= "EXECUTE q$n" . (@params ? '(' . join(', ', map { pg_literal($_) } @params) . ')' : '') . ";\n";
		if ($c{write} && $lt =~ /^\s*(?:INSERT|UPDATE|DELETE)\b/i) {
			$ls .= "SELECT last_insert_rowid();\n" if $returning;
			$ls .= "SELECT changes();\n";
			$ps .= "SELECT :ROW_COUNT;\n";
		}
	}
	$ls .= "ROLLBACK;\n" if $c{write};
	$ps .= "ROLLBACK;\n";
	my ($lrc, $lout) = run(['sqlite3', '-bail', $sqlite], $ls);
	my ($prc, $pout) = run(['psql', '-X', '-q', '--csv', '-t', '-P', 'null=\\N', $url], $ps);
	my @why;
	push @why, "sqlite3: $lout" if $lrc;
	push @why, "psql: $pout" if $prc;
	if (!@why) {
		my ($lp, $pp) = (parts($lout), parts($pout));
		my ($lr, $pr) = ([], []);
		for my $k (1 .. $n) {
			my $l = parse_quote($lp->{$k} // '');
			my $q = parse_csv($pp->{$k} // '');
			if ($unordered{$k}) {
				$l = [sort { row_key($a) cmp row_key($b) } @$l];
				$q = [sort { row_key($a) cmp row_key($b) } @$q];
			}
			push @$lr, @$l;
			push @$pr, @$q;
		}
		push @why, sprintf('%d rows from SQLite, %d from PostgreSQL', scalar @$lr, scalar @$pr)
		    if @$lr != @$pr;
		for my $i (0 .. ($#$lr < $#$pr ? $#$lr : $#$pr)) {
			my ($a, $b) = ($lr->[$i], $pr->[$i]);
			my $same = @$a == @$b;
			for my $j (0 .. $#$a) {
				last unless $same;
				$same = same_value($a->[$j], $b->[$j]);
			}
			next if $same;
			push @why, "row $i: SQLite " . show_row($a) . "\n    PostgreSQL " . show_row($b);
			last if @why > 3;
		}
		$c{rows} = scalar @$lr;
		$c{shown} = $lr;
	}
	if (@why) {
		$failed++;
		(my $w = join("\n", @why)) =~ s/\n/\n    /g;
		print "not ok $title\n    $w\n";
	} else {
		$passed++;
		print "ok $title ($c{rows} rows)\n";
		print map { "    " . show_row($_) . "\n" } @{$c{shown}} if $ENV{VERBOSE};
	}
}

sub read_case {
	my ($title, $file, $name, @params) = @_;
	case($title, steps => [[$file, $name, @params]]);
}

# --- parameters from the rows ---------------------------------------------------------------
my $min = 'i:-9223372036854775808';
my ($g, $gb, $gc) = ('i:2', 'i:1', 't:2560x1440/1800f'); # a group: machine, benchmark, config
my $max_run = lite_value('SELECT max(id) FROM runs');
my $min_at = lite_value('SELECT min(committed_at) FROM detect_log_commits');
my $m2 = lite_value('SELECT name FROM machines WHERE id = 2');
my $m3 = lite_value('SELECT name FROM machines WHERE id = 3');
my $b1 = lite_value('SELECT name FROM benchmarks WHERE id = 1');
my $c2 = lite_value('SELECT commit_sha FROM runs WHERE id = 3521');
my $early = lite_value('SELECT sha FROM commits WHERE seq = 100');
# A group with records placed by time (a place ending in .5), and one with Baselines.
my @timed = split /\|/, lite_value(
	"SELECT r.machine_id, r.benchmark_id, r.config FROM records x JOIN runs r ON r.id = x.run_id
	 WHERE r.commit_sha NOT IN (SELECT sha FROM commits) ORDER BY r.id LIMIT 1");
my @based = split /\|/, lite_value(
	"SELECT r.machine_id, r.benchmark_id, r.config FROM records x JOIN runs r ON r.id = x.run_id
	 WHERE r.baseline <> 0 ORDER BY r.id LIMIT 1");
my $quantile = lite_value("SELECT name FROM metrics WHERE kind = 'quantile' LIMIT 1");
my $quantile_run = lite_value("SELECT run_id FROM metrics WHERE kind = 'quantile' LIMIT 1");
# The alerts compare-q2.sh left: 1 (ignored, its Suspects on four Series at its commit, one of
# them transient, counted), 2 (confirmed, with Suspects that joined it from other commits), 3
# (kept with no Suspect), 5 (transient), 6 (pending), 7 (covered, counted, at alert 2's commit
# on another machine), 8 (judged before quiet.transient_records was kept), 9 (judged under 3),
# 10 (its Suspect's run removed).
my $c1 = lite_value('SELECT commit_sha FROM alerts WHERE id = 1');
my $c3 = lite_value('SELECT commit_sha FROM alerts WHERE id = 3');
my $c10 = lite_value('SELECT commit_sha FROM alerts WHERE id = 10');
# A machine's commit where some standing records are tagged and some not.
my ($tagged_m, $tagged_c) = split /\|/, lite_value(
	"SELECT r.machine_id, r.commit_sha FROM runs r JOIN records x ON x.run_id = r.id
	 GROUP BY r.machine_id, r.commit_sha
	 HAVING sum(EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.id)) > 0
	    AND sum(NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.id)) > 0
	 ORDER BY 1, 2 LIMIT 1");
# What the next alert and Suspect inserted get as ids (AUTOINCREMENT; the PostgreSQL
# sequences were set to the same place).
my $next_alert = 1 + lite_value("SELECT max(coalesce((SELECT seq FROM sqlite_sequence
				 WHERE name = 'alerts'), 0), (SELECT coalesce(max(id), 0) FROM alerts))");
my $next_suspect = 1 + lite_value("SELECT max(coalesce((SELECT seq FROM sqlite_sequence
				   WHERE name = 'suspects'), 0), (SELECT coalesce(max(id), 0) FROM suspects))");
# An untagged standing record of machine 2 at the early commit, with no Suspect, and the
# record its Series had before it: a new Suspect's, in a new alert.
my ($new_run, $new_bench, $new_config, $new_metric, $new_median) = split /\|/, lite_value(
	"SELECT r.id, r.benchmark_id, r.config, m.name, m.median
	 FROM runs r JOIN records x ON x.run_id = r.id JOIN metrics m ON m.run_id = r.id
	 WHERE r.machine_id = 2 AND r.commit_sha = '$early' AND m.median IS NOT NULL
	   AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.id)
	   AND NOT EXISTS (SELECT 1 FROM suspects s WHERE s.run_id = r.id)
	 ORDER BY r.id, m.name LIMIT 1");
my $new_ref = lite_value(
	"SELECT q.id FROM records y JOIN placed_runs q ON q.id = y.run_id
	 WHERE y.machine_id = 2 AND y.benchmark_id = $new_bench AND y.config = '$new_config'
	   AND q.place < (SELECT place FROM placed_runs WHERE id = $new_run)
	 ORDER BY q.place DESC, q.at DESC, q.started_at DESC, q.id DESC LIMIT 1");

my @suspect_cols = qw(id run_id metric machine_id benchmark_id config side shift median center
		      tolerance deviation reference_run_id follows_run_id followers persisted
		      alert_id state);
my $suspects_rows = 'SELECT ' . join(', ', @suspect_cols) . ' FROM suspects ORDER BY id';
my $alerts_rows = 'SELECT id, machine_id, commit_sha, side, state, series, judged_series, '
    . 'run_wide, outcome, rebench, note, filed_url, transient_records FROM alerts ORDER BY id';
my $meta_rows = 'SELECT key, value FROM meta ORDER BY key';

# --- detect.sql -------------------------------------------------------------------------------
read_case('detect_commits', 'detect.sql', '~detect_commits');
my $no_limit = 'i:9223372036854775807';
read_case('detect_scan_records from the start', 'detect.sql', 'detect_scan_records', $min, $min, 't:', $no_limit);
read_case('detect_scan_records to a limit', 'detect.sql', 'detect_scan_records', $min, $min, 't:', 'i:7');
read_case('detect_scan_records resumed at a group', 'detect.sql', 'detect_scan_records', $g, $gb, $gc, $no_limit);
read_case('detect_scan_records resumed to a limit', 'detect.sql', 'detect_scan_records', $g, $gb, $gc, 'i:3');
read_case('detect_scan_records resumed past the last', 'detect.sql', 'detect_scan_records', 'i:9', 'i:0', 't:', $no_limit);
read_case('detect_scan_tags all', 'detect.sql', 'detect_scan_tags', 'i:1', "i:$max_run");
read_case('detect_scan_tags a range', 'detect.sql', 'detect_scan_tags', 'i:100', 'i:2000');
read_case('detect_scan_runs all', 'detect.sql', 'detect_scan_runs', 'i:1', "i:$max_run");
read_case('detect_scan_runs a range', 'detect.sql', 'detect_scan_runs', 'i:500', 'i:900');
read_case('detect_scan_metrics all', 'detect.sql', 'detect_scan_metrics', 'i:1', "i:$max_run");
read_case('detect_scan_metrics a range', 'detect.sql', 'detect_scan_metrics', 'i:500', 'i:600');
read_case('detect_group_members', 'detect.sql', 'detect_group_members', $g, $gb, $gc);
read_case('detect_group_members placed by time', 'detect.sql', 'detect_group_members',
	  "i:$timed[0]", "i:$timed[1]", "t:$timed[2]");
read_case('detect_group_members with Baselines', 'detect.sql', 'detect_group_members',
	  "i:$based[0]", "i:$based[1]", "t:$based[2]");
read_case('detect_group_members of no group', 'detect.sql', 'detect_group_members', 'i:9', 'i:9', 't:x');
read_case('detect_changes', 'detect.sql', 'detect_changes');
read_case('detect_run_metrics', 'detect.sql', 'detect_run_metrics', 'i:2283');
read_case('detect_run_metrics quantile', 'detect.sql', 'detect_run_metrics', "i:$quantile_run");
read_case('detect_commit_log_stats', 'detect.sql', 'detect_commit_log_stats');
read_case('detect_commit_runs', 'detect.sql', '~detect_commit_runs');
read_case('detect_time_groups', 'detect.sql', '~detect_time_groups', "r:$min_at");
read_case('detect_time_groups from a time in the history', 'detect.sql', '~detect_time_groups',
	  'r:1770887640');
read_case('detect_time_groups from 0', 'detect.sql', '~detect_time_groups', 'r:0.5');
read_case('detect_lines_all', 'detect.sql', '~detect_lines_all');
read_case('detect_lines_group', 'detect.sql', 'detect_lines_group', $g, $gb, $gc);
read_case('detect_lines_group placed by time', 'detect.sql', 'detect_lines_group',
	  "i:$timed[0]", "i:$timed[1]", "t:$timed[2]");
read_case('detect_series_count', 'detect.sql', 'detect_series_count');
read_case('detect_suspects_all', 'detect.sql', '~detect_suspects_all');
read_case('detect_suspects_group', 'detect.sql', '~detect_suspects_group', $g, $gb, $gc);
# The Suspects' key is the run's group, the run, the metric and the kind.
my @k2283 = split /\|/, lite_value('SELECT machine_id, benchmark_id, config FROM runs WHERE id = 2283');
my @find2283 = ("i:$k2283[0]", "i:$k2283[1]", "t:$k2283[2]", 'i:2283');
read_case('detect_suspect_find', 'detect.sql', 'detect_suspect_find', @find2283, 't:cpu_frame_us',
	  't:band');
read_case('detect_suspect_find of the other kind: none', 'detect.sql', 'detect_suspect_find',
	  @find2283, 't:cpu_frame_us', 't:change-point');
read_case('detect_suspect_find none', 'detect.sql', 'detect_suspect_find', @find2283, 't:nope',
	  't:band');
read_case('detect_suspect_find in another group', 'detect.sql', 'detect_suspect_find', 'i:9', 'i:9',
	  "t:$k2283[2]", 'i:2283', 't:cpu_frame_us', 't:band');
read_case('detect_run_commit', 'detect.sql', 'detect_run_commit', 'i:2283');
read_case('detect_run_commit of no run', 'detect.sql', 'detect_run_commit', 'i:999999');
read_case('detect_pinned', 'detect.sql', 'detect_pinned');
# Before any case inserts a Suspect: PostgreSQL's sequence is not rolled back with the
# transaction, so after one the last id given is one more there (no id a row keeps; the C code
# only lists the Suspects over it as new).
read_case('detect_suspect_last_id', 'detect.sql', 'detect_suspect_last_id');
read_case('suspects_list all', 'detect.sql', 'suspects_list', 'i:0', 'n');
read_case('suspects_list over an id', 'detect.sql', 'suspects_list', 'i:5', 'n');
read_case('suspects_list of an alert', 'detect.sql', 'suspects_list', 'i:0', 'i:1');
read_case('suspects_new', 'detect.sql', 'suspects_new', 'i:0', 'i:3');
read_case('suspects_new over an id', 'detect.sql', 'suspects_new', 'i:5', 'i:100');
read_case('suspects_new over the last', 'detect.sql', 'suspects_new',
	  'i:' . ($next_suspect - 1), 'i:20');
read_case('suspects_open_count', 'detect.sql', 'suspects_open_count', "t:$m2", "t:$b1", $gc,
	  't:cpu_frame_us', 't:open');
read_case('suspects_open_count ignored', 'detect.sql', 'suspects_open_count', "t:$m2", "t:$b1",
	  $gc, 't:cpu_frame_us', 't:ignored');
read_case('series_judged', 'detect.sql', 'series_judged', "t:$m2", "t:$b1", $gc, 't:cpu_frame_us');
read_case('series_judged not judged', 'detect.sql', 'series_judged', "t:$m2", "t:$b1", $gc,
	  't:allocations');
read_case('series_judged no lines', 'detect.sql', 'series_judged', "t:$m2", "t:$b1", $gc, 't:nope');
read_case('detect_metric_ladder', 'detect.sql', 'detect_metric_ladder', "t:$quantile");
read_case('detect_metric_ladder none', 'detect.sql', 'detect_metric_ladder', 't:gpu_frame_us');

case('detect_log_*_clear', write => 1,
     steps => [['detect.sql', 'detect_log_clear'], ['detect.sql', 'detect_log_commits_clear'],
	       ['detect.sql', 'detect_log_runs_clear']],
     checks => ['SELECT (SELECT count(*) FROM detect_log), (SELECT count(*) FROM detect_log_runs), '
		. '(SELECT count(*) FROM detect_log_commits)']);
my @end = ('i:40', 'i:-8070450532247928832', 'i:2283', 'r:61.5', 'r:1776000000.25',
	   'r:1776000001.125', 'n', 'i:1', 'b:0001020304fffe');
case('detect_line_put, detect_line_end_put', write => 1,
     steps => [['detect.sql', '+detect_line_put', $g, $gb, $gc, 't:cpu_frame_us', 'i:7', 't:pinned',
		'i:2283', 'i:3', 'n'],
	       ['detect.sql', 'detect_line_end_put', 'i:' . (1 + lite_value('SELECT max(id) FROM lines')),
		@end]],
     checks => ['SELECT l.*, e.* FROM lines l JOIN line_ends e ON e.line_id = l.id '
		. 'WHERE l.id = (SELECT max(id) FROM lines)']);
case('detect_line_end_grow', write => 1,
     steps => [['detect.sql', 'detect_line_end_grow', 'i:3', 'i:41', 'i:1234567890123', 'i:2283',
		'r:61.5', 'r:1776000000.25', 'r:1776000001.125', 'r:1776000002.5', 'i:0', 'n']],
     checks => ['SELECT * FROM line_ends WHERE line_id = 3']);
case('detect_lines_delete_group', write => 1,
     steps => [['detect.sql', 'detect_lines_delete_group', $g, $gb, $gc]],
     checks => ['SELECT (SELECT count(*) FROM lines), (SELECT count(*) FROM line_ends)']);
# What a line keeps for the change-point search: its full chunks of values, and what its next
# search goes on from; written, replaced, read, and deleted by group and all.
my $kept = 'SELECT (SELECT count(*) FROM line_values), (SELECT count(*) FROM line_searches)';
case('detect_values_*, detect_search*', write => 1,
     steps => [['detect.sql', 'detect_values_put', 'i:3', 'i:7', 'b:00010203'],
	       ['detect.sql', 'detect_values_put', 'i:3', 'i:7', 'b:fffe'],
	       ['detect.sql', 'detect_values_put', 'i:3', 'i:8', 'b:'],
	       ['detect.sql', 'detect_values_read', 'i:3'],
	       ['detect.sql', 'detect_search_put', 'i:3', 'b:0a0b'],
	       ['detect.sql', 'detect_search_put', 'i:3', 'b:0c'],
	       ['detect.sql', 'detect_search_read', 'i:3'],
	       ['detect.sql', 'detect_search_read', 'i:999999'],
	       $kept,
	       ['detect.sql', 'detect_values_delete_group', $g, $gb, $gc],
	       ['detect.sql', 'detect_searches_delete_group', $g, $gb, $gc],
	       $kept,
	       ['detect.sql', 'detect_values_delete_all'],
	       ['detect.sql', 'detect_searches_delete_all']],
     checks => [$kept, 'SELECT * FROM line_searches WHERE line_id = 3']);
case('detect_line_ends_delete_all, detect_lines_delete_all', write => 1,
     steps => [['detect.sql', 'detect_line_ends_delete_all'],
	       ['detect.sql', 'detect_lines_delete_all']],
     checks => ['SELECT (SELECT count(*) FROM lines), (SELECT count(*) FROM line_ends)']);
# A Suspect's numbers as detect_suspect_update takes them (?2 to ?11): side, shift, median,
# center, tolerance, deviation, reference, follows, followers, persisted.
my @numbers = ('t:faster', 'r:-0.25', 'r:3.5', 'r:4.666666666666667', 'r:0.125', 'r:0.03125',
	       'i:2259', 'n', 'i:3', 'i:1');
case('detect_suspect_update', write => 1,
     steps => [['detect.sql', 'detect_suspect_update', 'i:1', @numbers, 'i:2', 't:confirmed'],
	       ['detect.sql', 'detect_suspect_update', 'i:5', 't:faster', 'r:-0.125', 'r:2.5',
		'r:2.857142857142857', 'r:0.0625', 'r:0', 'n', 'i:2283', 'i:8', 'i:8', 'n',
		't:pending'],
	       ['detect.sql', 'detect_suspect_update', 'i:999', @numbers, 'i:1', 't:open'],
	       ['detect.sql', 'detect_suspect_find', @find2283, 't:cpu_frame_us', 't:band'],
	       ['alerts.sql', '~alerts_members', 'i:2'], ['alerts.sql', 'alerts_suspect_ids', 'i:1']],
     checks => [$suspects_rows, $alerts_rows]);
case('detect_suspect_delete', write => 1,
     steps => [['detect.sql', 'detect_suspect_delete', 'i:2'],
	       ['detect.sql', 'detect_suspect_delete', 'i:999']],
     checks => [$suspects_rows, $alerts_rows]);

# --- alerts.sql -------------------------------------------------------------------------------
read_case('alerts_find', 'alerts.sql', 'alerts_find', 'i:2', "t:$c2", 't:slower');
read_case('alerts_find on another machine', 'alerts.sql', 'alerts_find', 'i:3', "t:$c2",
	  't:slower');
read_case('alerts_find of the other side: none', 'alerts.sql', 'alerts_find', 'i:2', "t:$c2",
	  't:faster');
read_case('alerts_find of an alert with no Suspect left', 'alerts.sql', 'alerts_find', 'i:2',
	  "t:$c3", 't:slower');
read_case('alerts_get', 'alerts.sql', 'alerts_get', 'i:1');
read_case('alerts_get never judged under a kept setting', 'alerts.sql', 'alerts_get', 'i:8');
read_case('alerts_get with no Suspect left', 'alerts.sql', 'alerts_get', 'i:3');
read_case('alerts_get none', 'alerts.sql', 'alerts_get', 'i:999');
read_case('alerts_members', 'alerts.sql', '~alerts_members', 'i:1');
read_case('alerts_members joined from other commits', 'alerts.sql', '~alerts_members', 'i:2');
read_case('alerts_members of an alert with none', 'alerts.sql', '~alerts_members', 'i:3');
read_case('alerts_members of a removed run', 'alerts.sql', '~alerts_members', 'i:10');
read_case('alerts_stale under 4', 'alerts.sql', 'alerts_stale', 'i:4');
read_case('alerts_stale under 3', 'alerts.sql', 'alerts_stale', 'i:3');
read_case('alerts_counted_at', 'alerts.sql', 'alerts_counted_at', 'i:2', "t:$c1");
read_case('alerts_counted_at on another machine', 'alerts.sql', 'alerts_counted_at', 'i:3',
	  "t:$c2");
read_case('alerts_counted_at of an alert not counted', 'alerts.sql', 'alerts_counted_at', 'i:2',
	  "t:$c2");
read_case('alerts_counted', 'alerts.sql', 'alerts_counted');
read_case('alerts_judged_at', 'alerts.sql', 'alerts_judged_at', 'i:2', "t:$c1");
read_case('alerts_judged_at on another machine', 'alerts.sql', 'alerts_judged_at', 'i:3',
	  "t:$c2");
read_case('alerts_judged_at with tagged records', 'alerts.sql', 'alerts_judged_at',
	  "i:$tagged_m", "t:$tagged_c");
read_case('alerts_judged_at of a removed run', 'alerts.sql', 'alerts_judged_at', 'i:3',
	  "t:$c10");
read_case('alerts_judged_at of no commit', 'alerts.sql', 'alerts_judged_at', 'i:2', 't:0000');
read_case('alerts_list all', 'alerts.sql', 'alerts_list', 'n', 'n', 'n');
read_case('alerts_list of a machine', 'alerts.sql', 'alerts_list', "t:$m3", 'n', 'n');
read_case('alerts_list of a state', 'alerts.sql', 'alerts_list', 'n', 't:open', 'n');
read_case('alerts_list pending', 'alerts.sql', 'alerts_list', 'n', 't:pending', 'n');
read_case('alerts_list transient', 'alerts.sql', 'alerts_list', "t:$m2", 't:transient', 'n');
read_case('alerts_list one', 'alerts.sql', 'alerts_list', 'n', 'n', 'i:2');
read_case('alerts_list one with a transient Suspect', 'alerts.sql', 'alerts_list', 'n', 'n',
	  'i:1');
read_case('alerts_list one with no Suspect left: none', 'alerts.sql', 'alerts_list', 'n', 'n',
	  'i:3');
read_case('alerts_suspect_ids', 'alerts.sql', 'alerts_suspect_ids', 'i:1');
read_case('alerts_suspect_ids joined from other commits', 'alerts.sql', 'alerts_suspect_ids',
	  'i:2');
read_case('alerts_last_id', 'alerts.sql', 'alerts_last_id');
read_case('alerts_count_after', 'alerts.sql', 'alerts_count_after', 'i:5');
read_case('alerts_count_after 0', 'alerts.sql', 'alerts_count_after', 'i:0');
# The pass as detect/alerts.c runs it on a new Suspect at a commit with no alert: a new alert
# (pending, under quiet.transient_records 3), the Suspect in it, the alert judged; then the
# Suspect persisted under 4 and the alert judged again, counted at its commit; and a Suspect
# given no alert. The only case that inserts alerts or Suspects: PostgreSQL's sequences are
# not rolled back, so the ids it gives would differ from SQLite's in a case after it.
case('a new alert and its Suspect', write => 1,
     steps => [['alerts.sql', '+alerts_insert', 'i:2', "t:$early", 't:slower', 't:pending',
		'i:3'],
	       ['alerts.sql', 'alerts_find', 'i:2', "t:$early", 't:slower'],
	       ['alerts.sql', 'alerts_get', "i:$next_alert"],
	       # the clocks' times, then one time for the listings
	       'SELECT count(*) FROM alerts WHERE created_at IS NULL OR created_at < 1700000000',
	       "UPDATE alerts SET created_at = 1796169409.25 WHERE id = $next_alert",
	       ['detect.sql', '+detect_suspect_insert', "i:$new_run", "t:$new_metric", 'i:2',
		"i:$new_bench", "t:$new_config", 't:slower', 'r:0.25', "r:$new_median",
		'r:' . $new_median / 1.25, 'r:0.0625', 'r:0.015625', "i:$new_ref", 'n', 'i:2',
		'i:2', "i:$next_alert", 't:pending', 'r:1796169410.5', 't:band'],
	       ['alerts.sql', 'alerts_put', "i:$next_alert", 't:pending', 'i:1', 'n', 'i:0',
		'i:3'],
	       ['alerts.sql', 'alerts_get', "i:$next_alert"],
	       ['alerts.sql', '~alerts_members', "i:$next_alert"],
	       ['alerts.sql', 'alerts_stale', 'i:4'], ['alerts.sql', 'alerts_stale', 'i:3'],
	       ['alerts.sql', 'alerts_list', 'n', 't:pending', 'n'],
	       ['detect.sql', 'detect_suspect_update', "i:$next_suspect", 't:slower', 'r:0.25',
		"r:$new_median", 'r:' . $new_median / 1.25, 'r:0.0625', 'r:0.015625',
		"i:$new_ref", 'n', 'i:4', 'i:4', "i:$next_alert", 't:open'],
	       ['alerts.sql', 'alerts_judged_at', 'i:2', "t:$early"],
	       ['alerts.sql', 'alerts_put', "i:$next_alert", 't:open', 'i:1', 'i:12', 'i:0',
		'i:4'],
	       ['alerts.sql', 'alerts_set_suspects_state', "i:$next_alert", 't:open'],
	       ['alerts.sql', 'alerts_get', "i:$next_alert"],
	       ['alerts.sql', 'alerts_stale', 'i:4'],
	       ['alerts.sql', 'alerts_counted_at', 'i:2', "t:$early"],
	       ['alerts.sql', 'alerts_counted'],
	       ['alerts.sql', 'alerts_list', 'n', 'n', "i:$next_alert"],
	       ['alerts.sql', 'alerts_suspect_ids', "i:$next_alert"],
	       ['alerts.sql', 'alerts_last_id'],
	       ['alerts.sql', 'alerts_count_after', 'i:' . ($next_alert - 1)],
	       ['detect.sql', '+detect_suspect_insert', 'i:2284', 't:gpu_frame_us', $g, $gb, $gc,
		@numbers, 'n', 't:pending', 'r:1796169410.5', 't:change-point'],
	       # 16 at once, as a first detect writes them
	       ['detect.sql', 'detect_suspect_insert_many',
		map { ('i:2284', "t:cp$_", $g, $gb, $gc, @numbers, 'n', 't:pending',
		       'r:1796169410.75', $_ % 2 ? 't:band' : 't:change-point') } 0 .. 15],
	       ['detect.sql', 'detect_suspect_last_id'],
	       ['detect.sql', 'suspects_new', 'i:' . ($next_suspect - 1), 'i:20'],
	       ['detect.sql', 'suspects_new', 'i:' . ($next_suspect - 1), 'i:1'],
	       ['detect.sql', 'suspects_list', 'i:' . ($next_suspect - 1), "i:$next_alert"]],
     checks => [$alerts_rows, $suspects_rows,
		'SELECT count(*) FROM suspects WHERE created_at IS NULL OR created_at < 1700000000']);
# What confirm records, and its Suspects following: only those whose state differs change.
case('alerts_set_outcome, alerts_set_suspects_state', write => 1,
     steps => [['alerts.sql', 'alerts_set_outcome', 'i:1', 't:cleared', 't:cleared',
		't:{"a": [1, 2.5]}', "t:it's a note\nof two lines"],
	       ['alerts.sql', 'alerts_set_suspects_state', 'i:1', 't:cleared'],
	       ['alerts.sql', 'alerts_set_suspects_state', 'i:1', 't:cleared'],
	       ['alerts.sql', 'alerts_set_outcome', 'i:8', 't:open', 'n', 'n', 'n'],
	       ['alerts.sql', 'alerts_set_suspects_state', 'i:8', 't:open'],
	       ['alerts.sql', 'alerts_set_outcome', 'i:6', 't:transient', 't:transient', 'n',
		't:came back'],
	       ['alerts.sql', 'alerts_set_suspects_state', 'i:6', 't:transient'],
	       ['alerts.sql', 'alerts_list', 'n', 'n', 'n']],
     checks => [$alerts_rows, $suspects_rows]);

# --- regressions.sql --------------------------------------------------------------------------
read_case('regression_find', 'regressions.sql', 'regression_find', $g, $gb, $gc, 't:gpu_frame_us',
	  "t:$c2");
read_case('regression_find none', 'regressions.sql', 'regression_find', $g, $gb, $gc,
	  't:gpu_frame_us', 't:0000');
read_case('regressions_list all', 'regressions.sql', 'regressions_list', 'i:0');
read_case('regressions_list of an alert', 'regressions.sql', 'regressions_list', 'i:2');
read_case('regressions_filtered all', 'regressions.sql', 'regressions_filtered', 'n', 'n', 'n',
	  'n', 'n');
read_case('regressions_filtered by machine and benchmark', 'regressions.sql',
	  'regressions_filtered', "t:$m2", "t:$b1", 'n', 'n', 'n');
read_case('regressions_filtered by commit prefix', 'regressions.sql', 'regressions_filtered', 'n',
	  'n', 't:' . substr($c2, 0, 6), 't:' . substr($c2, 0, 6) . 'g', 'n');
read_case('regressions_filtered by alert', 'regressions.sql', 'regressions_filtered', 'n', 'n',
	  'n', 'n', 'i:7');
read_case('regressions_of_series', 'regressions.sql', 'regressions_of_series', "t:$m2", "t:$b1",
	  $gc, 't:gpu_frame_us');
read_case('regressions_group_counts', 'regressions.sql', 'regressions_group_counts', $g, $gb, $gc);
read_case('triage_alerts', 'regressions.sql', 'triage_alerts');
case('regression_insert', write => 1,
     steps => [['regressions.sql', '+regression_insert', 'n', 'i:3', 'i:6', $gc, 't:gpu_frame_us',
		"t:$early", 't:src-9', 'n', 'i:12', 'r:0.8', 'r:0.75', 'r:0.85', "t:$early", 't:[]',
		'n'],
	       ['regressions.sql', '+regression_insert', 'i:8', 'i:3', 'i:6', $gc, 't:cpu_frame_us',
		't:abcdef', 't:src-10', 't:not on main', 'n', 'n', 'n', 'n', "t:$early", 't:[1]',
		't:{"benchmark":"x","functions":[]}']],
     checks => ['SELECT id, alert_id, machine_id, benchmark_id, config, metric, commit_sha, seq, '
		. 'source_hash, subject, pr, ratio, lo, hi, reference_commit, probes, profile '
		. 'FROM regressions ORDER BY id', $meta_rows,
		'SELECT count(*) FROM regressions WHERE created_at < 1700000000']);
case('alert_set_filed', write => 1,
     steps => [['regressions.sql', 'alert_set_filed', 'i:2', 't:https://example.invalid/2'],
	       ['regressions.sql', 'alert_set_filed', 'i:999', 't:x'],
	       ['regressions.sql', 'triage_alerts']],
     checks => [$alerts_rows]);

# --- plans (EXPLAIN=1) ------------------------------------------------------------------------
if ($ENV{EXPLAIN}) {
	my @reads = (['detect_scan_records', $min, $min, 't:', $no_limit],
		     ['detect_scan_tags', 'i:1', "i:$max_run"],
		     ['detect_scan_runs', 'i:1', "i:$max_run"],
		     ['detect_scan_metrics', 'i:1', "i:$max_run"],
		     ['detect_group_members', $g, $gb, $gc], ['detect_changes'], ['detect_commit_runs'],
		     ['detect_metric_ladder', "t:$quantile"]);
	for my $r (@reads) {
		my ($name, @params) = @$r;
		for my $mode (qw(custom generic)) {
			my $args = @params ? '(' . join(', ', map { pg_literal($_) } @params) . ')' : '';
			my ($rc, $out) = run(['psql', '-X', '-q', $url],
					     "SET plan_cache_mode = force_${mode}_plan;\n"
					     . "PREPARE q AS\n$pg{'detect.sql'}{$name};\n"
					     . "EXPLAIN (COSTS OFF) EXECUTE q$args;\n");
			my @plan = grep { /\S/ && !/QUERY PLAN|^-+$|^\(\d+ rows?\)$/ } split /\n/, $out;
			print "# $name ($mode plan)\n", map { "#   $_\n" } @plan;
		}
	}
}

# Every named statement of the three files, in both dialects, ran in a case above.
for my $f (sort keys %lite) {
	my %names = map { $_ => 1 } keys %{$lite{$f}}, keys %{$pg{$f}};
	for my $name (sort keys %names) {
		my $why = !exists $lite{$f}{$name} ? 'no SQLite text'
		    : !exists $pg{$f}{$name} ? 'no PostgreSQL text'
		    : !$used{$f}{$name} ? 'no case runs it' : '';
		next if $why eq '';
		$failed++;
		print "not ok $f $name: $why\n";
	}
}

print "$passed passed, $failed failed\n";
exit($failed ? 1 : 0);
