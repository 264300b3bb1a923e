#!/usr/bin/perl
# Size limits of a room's C files (issue 27): no file over MAX-FILE lines and no function over
# MAX-FUNCTION lines. A function is counted from the first line of its definition (the line at
# column 0 its signature starts on) to its closing brace at column 0, both included; the
# tree's style (clang-format) puts a definition's opening brace alone at column 0, so that is
# where one starts. Prints one line per file or function over its limit and exits 1 when there
# is any; with --print, every function's length too, longest first.
#
#   perl tests/check-sizes.pl [--print] [--max-file N] [--max-function N] DIR...
use strict;
use warnings;

my ($print, $max_file, $max_fn) = (0, 900, 90);
my @dirs;
while (@ARGV) {
	my $a = shift @ARGV;
	if ($a eq '--print') { $print = 1 }
	elsif ($a eq '--max-file') { $max_file = shift @ARGV }
	elsif ($a eq '--max-function') { $max_fn = shift @ARGV }
	else { push @dirs, $a }
}
die "usage: check-sizes.pl [--print] [--max-file N] [--max-function N] DIR...\n" unless @dirs;

my ($failed, @all) = (0);
for my $dir (@dirs) {
	opendir my $dh, $dir or die "cannot open '$dir': $!\n";
	for my $name (sort grep { /\.c$/ } readdir $dh) {
		my $f = "$dir/$name";
		$f =~ s{//+}{/}g;
		open my $fh, '<', $f or die "cannot open '$f': $!\n";
		my @lines = <$fh>;
		close $fh;
		if (@lines > $max_file) {
			printf "%s: %d lines (at most %d)\n", $f, scalar @lines, $max_file;
			$failed = 1;
		}
		my ($sig, $start, $fname);
		for my $i (0 .. $#lines) {
			my $l = $lines[$i];
			if ($l =~ /^[A-Za-z_]/ && $l !~ /^(struct|enum|union|typedef)\b[^(]*[{;]\s*$/) {
				$sig = $i;
			}
			if ($l =~ /^\{\s*$/ && defined $sig) {
				$start = $sig;
				my $text = join '', @lines[$sig .. $i - 1];
				($fname) = $text =~ /([A-Za-z_][A-Za-z0-9_]*)\s*\(/;
				$fname //= '?';
			} elsif ($l =~ /^\}/ && defined $start) {
				my $n = $i - $start + 1;
				push @all, [$n, $f, $start + 1, $fname];
				if ($n > $max_fn) {
					printf "%s:%d: %s is %d lines (at most %d)\n", $f, $start + 1, $fname,
					    $n, $max_fn;
					$failed = 1;
				}
				undef $start;
				undef $sig;
			}
		}
	}
}
if ($print) {
	printf "%4d %s:%d %s\n", @$_ for sort { $b->[0] <=> $a->[0] } @all;
}
exit $failed;
