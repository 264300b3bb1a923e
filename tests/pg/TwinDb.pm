# What the tests that hold a PostgreSQL database beside a SQLite one share: running SQL on
# either through its command-line client (psql, sqlite3; no Perl driver needed), reading rows
# back, applying sql/pg/'s migrations, and copying a SQLite file to work on.
#
#   use FindBin; use lib $FindBin::Bin; use TwinDb;
#
# Rows come back as lists of fields, split on control characters that no value here holds;
# NULL reads as ''. Every function dies with the client's exit status when the client fails.
package TwinDb;
use strict;
use warnings;
use Exporter qw(import);
use File::Basename qw(dirname);
use File::Spec;
use File::Temp qw(tempdir);

our @EXPORT_OK = qw(pg_rows pg_exec lite_rows lite_exec pg_apply lite_copy);

my $US = "\x1f"; # between fields
my $RS = "\x1e"; # between rows

# What CMD (run without a shell) prints.
sub run_out {
	my @cmd = @_;
	open my $fh, '-|', @cmd or die "cannot run $cmd[0]: $!\n";
	local $/;
	my $out = <$fh> // '';
	close $fh or die "$cmd[0] failed (exit " . ($? >> 8) . ")\n";
	return $out;
}

sub split_rows {
	my ($out) = @_;
	$out =~ s/\n\z//;
	return map { [split /\Q$US\E/, $_, -1] } grep { length } split /\Q$RS\E\n?/, $out;
}

# pg_rows(URL, SQL): the rows SQL gives.
sub pg_rows {
	my ($url, $sql) = @_;
	return split_rows(run_out('psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-F',
				  $US, '-R', $RS, '-d', $url, '-c', $sql));
}

# pg_exec(URL, SQL): SQL (one or more statements) in one transaction.
sub pg_exec {
	my ($url, $sql) = @_;
	run_out('psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-1', '-o', '/dev/null', '-d', $url,
		'-c', $sql);
}

# lite_rows(FILE, SQL): the rows SQL gives, read only.
sub lite_rows {
	my ($db, $sql) = @_;
	return split_rows(run_out('sqlite3', '-readonly', '-batch', '-noheader', '-separator', $US,
				  '-newline', $RS, $db, $sql));
}

# lite_exec(FILE, SQL): SQL in one transaction, foreign keys on as the store opens a file.
sub lite_exec {
	my ($db, $sql) = @_;
	run_out('sqlite3', '-batch', '-bail', $db,
		"PRAGMA foreign_keys = ON; BEGIN IMMEDIATE; $sql; COMMIT;");
}

# pg_apply(URL): applies sql/pg/0*.sql of this tree in order, each file in one transaction
# (as the C code applies them; it records the version itself).
sub pg_apply {
	my ($url) = @_;
	my $dir = File::Spec->catdir(dirname(File::Spec->rel2abs(__FILE__)), '..', '..', 'sql',
				     'pg');
	my @files = sort glob("$dir/[0-9][0-9][0-9]-*.sql") or die "no migrations in $dir\n";
	for my $f (@files) {
		system('psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-1', '-o', '/dev/null', '-d',
		       $url, '-f', $f) == 0
		    or die "applying $f failed\n";
	}
}

# lite_copy(FILE): a copy of the SQLite database FILE in a temporary directory removed at
# exit, so a test can change it and leave FILE as it was.
sub lite_copy {
	my ($src) = @_;
	-f $src or die "no SQLite database at '$src'\n";
	my $dir = tempdir('twindb.XXXXXX', TMPDIR => 1, CLEANUP => 1);
	my $copy = "$dir/copy.db";
	system('sqlite3', $src, ".backup '$copy'") == 0 or die "cannot copy '$src'\n";
	return $copy;
}

1;
