#!/usr/bin/perl
# Every section sign followed by a number (section N, or N.M) in benchline's code, tests and
# docs must name a section that docs/contract.md has: a heading "## <sign>N ..." or
# "### <sign>N.M ...". And every link of docs/contract.md must reach a file that exists, at an
# anchor that file has (a heading's GitHub slug or an <a id="...">).
#
#   perl tests/check-refs.pl [ROOT]     # ROOT: the repository (default: this script's ../)
#
# Prints one line per problem, "FILE:LINE: what is wrong", and exits 1 when there is any;
# prints a one-line summary and exits 0 otherwise. The sign is written as \xC2\xA7 (its UTF-8
# bytes) here so this file cites nothing itself.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Find;

my $root = abs_path(shift // dirname(__FILE__) . '/..');
my $contract = "$root/docs/contract.md";
my $sign = "\xC2\xA7";
my @problems;

sub slurp {
	my ($path) = @_;
	open my $f, '<:raw', $path or die "check-refs: cannot read $path: $!\n";
	local $/;
	return scalar <$f>;
}

# The anchors of a Markdown file: its headings' GitHub slugs (outside code fences) and the ids
# of its <a id="..."> tags.
sub anchors {
	my ($text) = @_;
	my (%a, $fence);
	for my $line (split /\n/, $text) {
		if ($line =~ /^```/) {
			$fence = !$fence;
			next;
		}
		next if $fence;
		$a{$1} = 1 while $line =~ /<a id="([^"]+)"><\/a>/g;
		if ($line =~ /^#{1,6}\s+(.*?)\s*$/) {
			my $slug = lc $1;
			$slug =~ s/[^a-z0-9 _-]//g;
			$slug =~ tr/ /-/;
			$a{$slug} = 1;
		}
	}
	return \%a;
}

# The sections docs/contract.md defines, and its links checked.
my %defined;
my $text = slurp($contract);
my $n = 0;
for my $line (split /\n/, $text) {
	$n++;
	$defined{$1} = $n if $line =~ /^#{2,3}\s+$sign(\d+(?:\.\d+)*)\s/;
	while ($line =~ /\]\(([^)#\s]*)(?:#([^)\s]+))?\)/g) {
		my ($file, $anchor) = ($1, $2);
		next if $file =~ m{^[a-z]+://};
		my $target = $file eq '' ? $contract : "$root/docs/$file";
		if (!-e $target) {
			push @problems, "docs/contract.md:$n: the link to '$file' reaches no file";
			next;
		}
		next unless defined $anchor;
		if (-d $target || !anchors(slurp($target))->{$anchor}) {
			push @problems, "docs/contract.md:$n: '$file' has no anchor '#$anchor'";
		}
	}
}
push @problems, "docs/contract.md: no section heading at all" unless %defined;

# Every citation in the tree.
my @files;
find(
	{
		no_chdir => 1,
		wanted => sub {
			return if $File::Find::name eq $root;
			my $rel = substr($File::Find::name, length($root) + 1);
			if (-d $_) {
				$File::Find::prune = 1
				    if $rel =~ m{^(\.git|build|node_modules|tests/fuzz/corpus)$};
				return;
			}
			push @files, $rel
			    if $rel =~ /\.(c|h|md|sql|sh|t|pl|js|css|txt)$/ || $rel =~ m{(^|/)Makefile$}
			    || $rel eq '.ci/run';
		},
	},
	$root
);
my $cited = 0;
for my $rel (sort @files) {
	my $line = 0;
	for (split /\n/, slurp("$root/$rel")) {
		$line++;
		while (/$sign\s?(\d+(?:\.\d+)*)/g) {
			$cited++;
			push @problems, "$rel:$line: \xC2\xA7$1 is cited, but docs/contract.md has no such section"
			    unless $defined{$1};
		}
	}
}

if (@problems) {
	print "$_\n" for @problems;
	exit 1;
}
printf "%d citations in %d files, each a section of docs/contract.md (%d sections)\n", $cited,
    scalar @files, scalar keys %defined;
exit 0;
