#!/usr/bin/perl
# Checks that docs/architecture.md's dependency table is the code's: for every room (a folder
# with C sources outside tests/), the other rooms whose headers its files include, common/
# left out. With --print it prints the table as the code has it, to paste into the document.
# Exits 1 and shows both when they differ.
use strict;
use warnings;
use File::Find;

my $root = shift @ARGV // '.';
my $print = 0;
if ($root eq '--print') { $print = 1; $root = shift @ARGV // '.'; }
chdir $root or die "cannot enter '$root': $!\n";

my %deps;
find({ no_chdir => 1, wanted => sub {
	my $f = $File::Find::name;
	$f =~ s{^\./}{};
	return unless $f =~ /\.[ch]$/;
	return if $f =~ m{^(tests|build|\.git)/};
	(my $room = $f) =~ s{/[^/]+$}{};
	return if $room eq $f;
	$deps{$room} //= {};
	open my $fh, '<', $f or die "cannot open '$f': $!\n";
	while (<$fh>) {
		next unless /^#include "([a-z_\/]+)\/[a-z_]+\.h"/;
		my $to = $1;
		next if $to eq $room || $to eq 'common';
		$deps{$room}{$to} = 1;
	}
}}, '.');

my $code = '';
for my $room (sort keys %deps) {
	my @to = sort keys %{ $deps{$room} };
	$code .= sprintf "%-18s -> %s\n", $room, @to ? join(' ', @to) : '(common/ only)';
}
if ($print) { print $code; exit 0; }

open my $doc, '<', 'docs/architecture.md' or die "cannot open 'docs/architecture.md': $!\n";
my $text = do { local $/; <$doc> };
my ($table) = $text =~ /<!-- deps -->\n```text\n(.*?)```/s
	or die "docs/architecture.md: no ```text block after <!-- deps -->\n";
exit 0 if $table eq $code;
print "docs/architecture.md says:\n$table\nthe code says:\n$code";
exit 1;
