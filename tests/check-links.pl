#!/usr/bin/perl
# Crawls a static site (benchline export --html) from its index.html, as a browser on the file
# system would: every href and src of every page reached, resolved against the page's folder.
# A link to a file that is not there, one that leaves the site, one by an absolute path (which
# the file system would resolve to its root) and a fragment with no element of that id on the
# page it names are broken. Links to other sites (http:, https:, mailto:) are not followed.
# Prints each broken link ("PAGE: LINK: why"), then "N pages, M files, B broken links"; exits
# 1 when any link is broken or no page was reached.
#
#   perl tests/check-links.pl DIR
use strict;
use warnings;
use File::Spec;

my $dir = shift @ARGV or die "usage: check-links.pl DIR\n";
$dir =~ s{/+$}{};
my (%seen, @queue, %ids);
my ($broken, $pages, $files) = (0, 0, 0);

# A path inside the site, without "." and ".." parts; undef when it leaves the site.
sub normal {
	my @out;
	for my $part (split m{/}, shift) {
		next if $part eq '' || $part eq '.';
		if ($part eq '..') { return undef unless @out; pop @out; next }
		push @out, $part;
	}
	return join '/', @out;
}

sub unescape { my $s = shift; $s =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge; $s =~ s/&amp;/&/g; $s }

sub ids_of {
	my $page = shift;
	return $ids{$page} if $ids{$page};
	my %set;
	if ($page =~ /\.(html|svg)$/ && open my $fh, '<', "$dir/$page") {
		local $/;
		my $text = <$fh>;
		$set{$1} = 1 while $text =~ /\bid="([^"]*)"/g;
	}
	return $ids{$page} = \%set;
}

sub broken { my ($page, $link, $why) = @_; print "$page: $link: $why\n"; $broken++ }

push @queue, 'index.html';
$seen{'index.html'} = 1;
broken('.', 'index.html', 'missing') unless -f "$dir/index.html";
while (defined(my $page = shift @queue)) {
	next unless -f "$dir/$page";
	$files++;
	next unless $page =~ /\.html$/;
	$pages++;
	open my $fh, '<', "$dir/$page" or die "cannot open '$dir/$page': $!\n";
	local $/;
	my $text = <$fh>;
	(my $folder = $page) =~ s{[^/]*$}{};
	while ($text =~ /\b(?:href|src)="([^"]*)"/g) {
		my $link = $1;
		next if $link =~ /^(https?|mailto):/i;
		if ($link =~ m{^/} || $link =~ /^[a-z][a-z0-9+.-]*:/i) {
			broken($page, $link, 'not relative');
			next;
		}
		my ($path, $frag) = split /#/, $link, 2;
		$path =~ s/\?.*//;
		my $target = $path eq '' ? $page : normal($folder . unescape($path));
		if (!defined $target) {
			broken($page, $link, 'leaves the site');
			next;
		}
		if (!-f "$dir/$target") {
			broken($page, $link, 'no such file');
			next;
		}
		if (defined $frag && $frag ne '' && !ids_of($target)->{unescape($frag)}) {
			broken($page, $link, "no element with id '$frag'");
		}
		push @queue, $target unless $seen{$target}++;
	}
}
print "$pages pages, $files files, $broken broken links\n";
exit($broken || !$pages ? 1 : 0);
