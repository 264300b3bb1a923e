#!/usr/bin/perl
# Checks the rooms of the tree (every folder with C sources outside tests/) three ways, and exits
# 1 when any check fails:
#   - no rooms form a cycle of includes (common/ left out): each cycle is named, as
#     "cycle: ingest -> ingest/adapters -> ingest";
#   - each room's opening comment (the first comment of its header, the one named after the
#     room: ingest/repo/repo.h) names every .c file of the room, as "native.c"; a name written
#     with a placeholder, as "cmd_<name>.c", stands for every file it matches (cmd_*.c). A folder
#     without such a header is a program of its own, not a room (fixtures/tour/), and has no
#     opening comment to check;
#   - docs/architecture.md's dependency table is the code's: for every room, the other rooms
#     whose headers its files include. When they differ it shows both.
# With --print it prints the table as the code has it, to paste into the document (and still
# fails on a cycle).
use strict;
use warnings;
use File::Find;

my $root = shift @ARGV // '.';
my $print = 0;
if ($root eq '--print') { $print = 1; $root = shift @ARGV // '.'; }
chdir $root or die "cannot enter '$root': $!\n";

my (%deps, %sources);
find({ no_chdir => 1, wanted => sub {
	my $f = $File::Find::name;
	$f =~ s{^\./}{};
	return unless $f =~ /\.[ch]$/;
	return if $f =~ m{^(tests|build|\.git)/};
	(my $room = $f) =~ s{/[^/]+$}{};
	return if $room eq $f;
	$deps{$room} //= {};
	push @{ $sources{$room} }, substr($f, length($room) + 1) if $f =~ /\.c$/;
	open my $fh, '<', $f or die "cannot open '$f': $!\n";
	while (<$fh>) {
		next unless /^#include "([a-z_\/]+)\/[a-z_]+\.h"/;
		my $to = $1;
		next if $to eq $room || $to eq 'common';
		$deps{$room}{$to} = 1;
	}
}}, '.');

my $failed = 0;

# Cycles: a depth-first walk from every room in name order; each edge back to a room still on
# the walk's path closes a cycle, named from its first room in name order so that one cycle
# reads the same whichever room the walk entered it by.
my (%state, @path, %seen_cycle);
sub walk {
	my ($room) = @_;
	$state{$room} = 1;
	push @path, $room;
	for my $to (sort keys %{ $deps{$room} }) {
		if (($state{$to} // 0) == 1) {
			my ($at) = grep { $path[$_] eq $to } 0 .. $#path;
			my @cycle = @path[$at .. $#path];
			my ($min) = sort { $cycle[$a] cmp $cycle[$b] } 0 .. $#cycle;
			@cycle = (@cycle[$min .. $#cycle], @cycle[0 .. $min - 1]);
			my $name = join(' -> ', @cycle, $cycle[0]);
			print "cycle: $name\n" unless $seen_cycle{$name}++;
			$failed = 1;
		} elsif (!$state{$to}) {
			walk($to) if exists $deps{$to};
		}
	}
	pop @path;
	$state{$room} = 2;
}
walk($_) for grep { !$state{$_} } sort keys %deps;

my $code = '';
for my $room (sort keys %deps) {
	my @to = sort keys %{ $deps{$room} };
	$code .= sprintf "%-18s -> %s\n", $room, @to ? join(' ', @to) : '(common/ only)';
}
if ($print) { print $code; exit $failed; }

# Opening comments.
for my $room (sort keys %sources) {
	(my $base = $room) =~ s{.*/}{};
	my $header = "$room/$base.h";
	next unless -f $header;
	open my $fh, '<', $header or die "cannot open '$header': $!\n";
	my $text = do { local $/; <$fh> };
	my ($comment) = $text =~ m{\A\s*(/\*.*?\*/)}s;
	$comment //= '';
	my @patterns = map { my ($pre, $post) = @$_; qr/^\Q$pre\E.+\Q$post\E$/ }
		map { [ /^(.*)<[a-z_]+>(.*)$/ ] } $comment =~ /([a-z_]*<[a-z_]+>[a-z_]*\.c)\b/g;
	for my $c (sort @{ $sources{$room} }) {
		next if $comment =~ /(?<![A-Za-z0-9_\/])\Q$c\E\b/;
		next if grep { $c =~ $_ } @patterns;
		print "$header: its opening comment does not name $c\n";
		$failed = 1;
	}
}

open my $doc, '<', 'docs/architecture.md' or die "cannot open 'docs/architecture.md': $!\n";
my $text = do { local $/; <$doc> };
my ($table) = $text =~ /<!-- deps -->\n```text\n(.*?)```/s
	or die "docs/architecture.md: no ```text block after <!-- deps -->\n";
if ($table ne $code) {
	print "docs/architecture.md says:\n$table\nthe code says:\n$code";
	$failed = 1;
}
exit $failed;
