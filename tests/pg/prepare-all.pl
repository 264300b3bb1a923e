#!/usr/bin/perl
# Prepares every named statement of the given files of PostgreSQL texts (those
# `store/embed-sql.sh --pg-dir DIR` writes: sql/pg/'s overrides and the derived rest) on a
# PostgreSQL database that holds benchline's schema, so a name, a type or a syntax error shows
# before any C code runs one.
#
#   prepare-all.pl URL DIR/queries.sql ...
#
# Prints "ok NAME" or "not ok NAME: the server's error" per statement; exits 1 if any failed.
use strict;
use warnings;

my $url = shift @ARGV or die "usage: prepare-all.pl URL FILE...\n";
my (@names, %text);
for my $file (@ARGV) {
	open my $fh, '<', $file or die "cannot open '$file': $!\n";
	my $name;
	while (my $line = <$fh>) {
		if ($line =~ /^-- name: (\S+)/) {
			$name = $1;
			push @names, $name;
			$text{$name} = '';
			next;
		}
		next if !defined $name || $line =~ /^--/;
		$text{$name} .= $line;
	}
}
my $failed = 0;
for my $name (@names) {
	(my $sql = $text{$name}) =~ s/;\s*\z//;
	my $script = "BEGIN;\nPREPARE bl_check AS\n$sql;\nROLLBACK;\n";
	open my $ps, '-|', 'sh', '-c', 'printf "%s" "$1" | psql -X -q -v ON_ERROR_STOP=1 "$2" 2>&1',
	    'sh', $script, $url or die "cannot run psql\n";
	my $out = join '', <$ps>;
	close $ps;
	if ($? == 0) {
		print "ok $name\n";
	} else {
		$out =~ s/\s+\z//;
		$out =~ s/\n/\n    /g;
		print "not ok $name: $out\n";
		$failed = 1;
	}
}
exit $failed;
