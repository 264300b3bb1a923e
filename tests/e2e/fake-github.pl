#!/usr/bin/perl
# A loopback stand-in for the few GitHub endpoints the gate action calls (t1410): the comments
# of a pull request (list, with pages; create; update) and a release's download. State lives in
# DIR: comments.json (every comment: {id, issue, body, html_url}), token (the bearer token the
# API wants), forbid (when present, creating and updating are refused with 403, as a fork's
# read-only token is), releases/FILE (what /OWNER/REPO/releases/download/TAG/FILE serves). Each
# request is logged to DIR/requests.log as "METHOD PATH". Listens on 127.0.0.1, a free port,
# written to DIR/port once it accepts; one request per connection; ends on SIGTERM.
#
#   perl fake-github.pl DIR &
use strict;
use warnings;
use IO::Socket::INET;
use JSON::PP;

my $dir = shift or die "usage: fake-github.pl DIR\n";
my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 16,
				ReuseAddr => 1, Proto => 'tcp')
    or die "fake-github: cannot listen: $!\n";
$SIG{TERM} = sub { exit 0 };

sub slurp { open my $f, '<', $_[0] or return undef; local $/; <$f> }
sub spit { open my $f, '>', "$_[0].tmp" or die; print $f $_[1]; close $f; rename "$_[0].tmp", $_[0] }
sub comments { my $t = slurp("$dir/comments.json"); $t ? decode_json($t) : [] }

open my $p, '>', "$dir/port.tmp" or die;
print $p $srv->sockport, "\n";
close $p;
rename "$dir/port.tmp", "$dir/port";

sub answer {
	my ($c, $code, $body, $type) = @_;
	my %why = (200 => 'OK', 201 => 'Created', 400 => 'Bad Request', 401 => 'Unauthorized',
		   403 => 'Forbidden', 404 => 'Not Found');
	$type //= 'application/json';
	print $c "HTTP/1.1 $code $why{$code}\r\nContent-Type: $type\r\nContent-Length: "
	    . length($body) . "\r\nConnection: close\r\n\r\n$body";
}

while (my $c = $srv->accept) {
	binmode $c;
	my $line = <$c> // next;
	$line =~ s/\r?\n$//;
	my ($method, $target) = split / /, $line;
	my %h;
	while (my $l = <$c>) {
		$l =~ s/\r?\n$//;
		last if $l eq '';
		my ($k, $v) = split /:\s*/, $l, 2;
		$h{lc $k} = $v;
	}
	my $body = '';
	read $c, $body, $h{'content-length'} if $h{'content-length'};
	my ($path, $query) = split /\?/, $target, 2;
	my %q = map { split /=/, $_, 2 } split /&/, $query // '';
	open my $log, '>>', "$dir/requests.log" or die;
	print $log "$method $target\n";
	close $log;

	if ($method eq 'GET' && $path =~ m{^/[^/]+/[^/]+/releases/download/[^/]+/([^/]+)$}) {
		my $data = slurp("$dir/releases/$1");
		defined $data ? answer($c, 200, $data, 'application/octet-stream')
		    : answer($c, 404, '{"message": "Not Found"}');
		next;
	}
	my $token = slurp("$dir/token") // '';
	chomp $token;
	if (($h{authorization} // '') ne "Bearer $token") {
		answer($c, 401, '{"message": "Bad credentials"}');
		next;
	}
	my $all = comments();
	if ($method eq 'GET' && $path =~ m{^/repos/[^/]+/[^/]+/issues/(\d+)/comments$}) {
		my ($issue, $per, $page) = ($1, $q{per_page} // 30, $q{page} // 1);
		my @mine = grep { $_->{issue} == $issue } @$all;
		my @slice = grep { defined } @mine[($page - 1) * $per .. $page * $per - 1];
		answer($c, 200, encode_json(\@slice));
	} elsif ($method eq 'POST' && $path =~ m{^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$}) {
		my ($repo, $issue) = ($1, $2);
		if (-e "$dir/forbid") {
			answer($c, 403, '{"message": "Resource not accessible by integration"}');
			next;
		}
		my $in = eval { decode_json($body) };
		if (!$in || !defined $in->{body}) {
			answer($c, 400, '{"message": "Problems parsing JSON"}');
			next;
		}
		my $id = 1000 + @$all;
		my $new = {id => $id, issue => 0 + $issue, body => $in->{body},
			   html_url => "https://github.com/$repo/pull/$issue#issuecomment-$id"};
		push @$all, $new;
		spit("$dir/comments.json", encode_json($all));
		answer($c, 201, encode_json($new));
	} elsif ($method eq 'PATCH' && $path =~ m{^/repos/[^/]+/[^/]+/issues/comments/(\d+)$}) {
		my $id = $1;
		my ($old) = grep { $_->{id} == $id } @$all;
		my $in = eval { decode_json($body) };
		if (-e "$dir/forbid") {
			answer($c, 403, '{"message": "Resource not accessible by integration"}');
		} elsif (!$old) {
			answer($c, 404, '{"message": "Not Found"}');
		} elsif (!$in || !defined $in->{body}) {
			answer($c, 400, '{"message": "Problems parsing JSON"}');
		} else {
			$old->{body} = $in->{body};
			spit("$dir/comments.json", encode_json($all));
			answer($c, 200, encode_json($old));
		}
	} else {
		answer($c, 404, '{"message": "Not Found"}');
	}
} continue {
	close $c if $c;
}
