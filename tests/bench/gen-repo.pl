#!/usr/bin/perl
# Writes a `git fast-import` stream: a history of N first-parent commits on main (default
# 10,000) for the sync budget (§12), deterministic for a seed.
#
#   gen-repo.pl [--commits N] [--seed S] | git fast-import --quiet
#
# The tree has measured paths (src/ with subdirectories, assets/, Makefile) and unmeasured
# ones (docs/, ci/, README.md, benchline.json). Each commit edits one file: six in ten a
# measured one, the rest docs or CI, so runs of commits share a source hash. Every 25th
# commit on main is the merge of a side-branch commit ("Merge pull request #N"), so the
# first-parent walk skips the side commits; other subjects end in "(#N)" like squash merges.
use strict;
use warnings;

my %opt = (commits => 10000, seed => 1);
while (@ARGV) {
	my $a = shift @ARGV;
	$a =~ /^--(commits|seed)$/ or die "gen-repo.pl: unknown option $a\n";
	defined($opt{$1} = shift @ARGV) or die "gen-repo.pl: $a needs a value\n";
}
srand($opt{seed});

my @measured = ((map { "src/core/file$_.c" } 0 .. 19), (map { "src/gpu/shader$_.glsl" } 0 .. 9),
	(map { "assets/scene$_.txt" } 0 .. 4), 'Makefile');
my @unmeasured = ((map { "docs/page$_.md" } 0 .. 9), 'ci/build.yml', 'ci/bench.yml', 'README.md');
my $t = 1767225600; # 2026-01-01T00:00:00Z
my $mark = 0;
my %content; # path -> revision number

sub data {
	my ($text) = @_;
	return "data " . length($text) . "\n$text\n";
}

sub file {
	my ($path) = @_;
	my $rev = ++$content{$path};
	return "M 100644 inline $path\n" . data("$path revision $rev\n" . ("x" x (200 + $rev % 300)) . "\n");
}

sub commit {
	my ($ref, $subject, $from, $merge, @changes) = @_;
	my $out = "commit refs/heads/$ref\nmark :" . ++$mark . "\n";
	$t += 60 + int(rand(3600));
	$out .= "author Bench <bench\@example.com> $t +0000\n";
	$out .= "committer Bench <bench\@example.com> $t +0000\n";
	$out .= data($subject);
	$out .= "from :$from\n" if $from;
	$out .= "merge :$merge\n" if $merge;
	$out .= $_ for @changes;
	print $out;
	return $mark;
}

my $config = qq({"measured_paths": ["src", "assets", "Makefile"],\n)
	. qq( "unmeasured_paths": ["docs", "ci", "README.md", "benchline.json"]}\n);
my $head = commit('main', 'initial import', 0, 0, (map { file($_) } @measured, @unmeasured),
	"M 100644 inline benchline.json\n" . data($config));
my $pr = 1;
for my $i (1 .. $opt{commits} - 1) {
	$pr++;
	if ($i % 25 == 0) {
		my $side = commit("pr$pr", "work on #$pr", $head, 0, file($measured[int(rand(@measured))]));
		$head = commit('main', "Merge pull request #$pr from dev/pr$pr", $head, $side,
			file($unmeasured[int(rand(@unmeasured))]));
		next;
	}
	my $path = rand() < 0.6 ? $measured[int(rand(@measured))] : $unmeasured[int(rand(@unmeasured))];
	$head = commit('main', "change $path (#$pr)", $head, 0, file($path));
}
