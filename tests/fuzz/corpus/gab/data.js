window.BENCHMARK_DATA = {
  "lastUpdate": 1767571200000,
  "repoUrl": "https://github.com/example/fixture",
  "entries": {
    "C++ Benchmark": [
      {
        "commit": {
          "author": {
            "email": "dev@example.org",
            "name": "Dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "77ca0ef0a4904fade42010090ef0f406bb0c4899",
          "message": "change 0",
          "timestamp": "2026-01-01T01:00:00+09:00",
          "tree_id": "fe18920df6f891383a8bf956a81901edab7b8eab",
          "url": "https://github.com/example/fixture/commit/77ca0ef0a4904fade42010090ef0f406bb0c4899"
        },
        "date": 1767231000000,
        "tool": "googlecpp",
        "benches": [
          {
            "name": "BM_Sort/1024",
            "value": 23456.7,
            "unit": "ns/iter",
            "extra": "iterations: 29861\ncpu: 23402.1 ns\nthreads: 1"
          },
          {
            "name": "BM_Search",
            "value": 812.5,
            "unit": "ns/iter",
            "extra": "iterations: 861234\ncpu: 810.9 ns\nthreads: 1"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.org",
            "name": "Dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "c84634d0942d05ebe122c02d7b7fb39ff3bfd489",
          "message": "change 1",
          "timestamp": "2026-01-02T02:00:00+09:00",
          "tree_id": "9a1df97879a25ff71c9c74d7a7d085c9d485357c",
          "url": "https://github.com/example/fixture/commit/c84634d0942d05ebe122c02d7b7fb39ff3bfd489"
        },
        "date": 1767317400000,
        "tool": "googlecpp",
        "benches": [
          {
            "name": "BM_Sort/1024",
            "value": 23456.7,
            "unit": "ns/iter",
            "extra": "iterations: 29861\ncpu: 23402.1 ns\nthreads: 1"
          },
          {
            "name": "BM_Search",
            "value": 813.5,
            "unit": "ns/iter",
            "extra": "iterations: 861234\ncpu: 810.9 ns\nthreads: 1"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.org",
            "name": "Dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "b0ef9ad7522e044c0518ba9c88b2b8fe9e856949",
          "message": "change 2",
          "timestamp": "2026-01-03T03:00:00+09:00",
          "tree_id": "64d56fa4ae306703015996cd8ac31fa6805273d9",
          "url": "https://github.com/example/fixture/commit/b0ef9ad7522e044c0518ba9c88b2b8fe9e856949"
        },
        "date": 1767403800000,
        "tool": "googlecpp",
        "benches": [
          {
            "name": "BM_Sort/1024",
            "value": 30493.71,
            "unit": "ns/iter",
            "extra": "iterations: 29861\ncpu: 23402.1 ns\nthreads: 1"
          },
          {
            "name": "BM_Search",
            "value": 814.5,
            "unit": "ns/iter",
            "extra": "iterations: 861234\ncpu: 810.9 ns\nthreads: 1"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.org",
            "name": "Dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "b0ef9ad7522e044c0518ba9c88b2b8fe9e856949",
          "message": "change 2",
          "timestamp": "2026-01-03T03:00:00+09:00",
          "tree_id": "64d56fa4ae306703015996cd8ac31fa6805273d9",
          "url": "https://github.com/example/fixture/commit/b0ef9ad7522e044c0518ba9c88b2b8fe9e856949"
        },
        "date": 1767411000000,
        "tool": "googlecpp",
        "benches": [
          {
            "name": "BM_Sort/1024",
            "value": 30411.2,
            "unit": "ns/iter"
          },
          {
            "name": "BM_Search",
            "value": 815.0,
            "unit": "ns/iter"
          }
        ]
      }
    ],
    "Web Throughput": [
      {
        "commit": {
          "author": {
            "email": "dev@example.org",
            "name": "Dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "77ca0ef0a4904fade42010090ef0f406bb0c4899",
          "message": "change 0",
          "timestamp": "2026-01-01T01:00:00+09:00",
          "tree_id": "fe18920df6f891383a8bf956a81901edab7b8eab",
          "url": "https://github.com/example/fixture/commit/77ca0ef0a4904fade42010090ef0f406bb0c4899"
        },
        "date": 1767231000000,
        "tool": "customBiggerIsBetter",
        "benches": [
          {
            "name": "requests",
            "value": 1520.0,
            "unit": "req/s",
            "range": "3%"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.org",
            "name": "Dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "c84634d0942d05ebe122c02d7b7fb39ff3bfd489",
          "message": "change 1",
          "timestamp": "2026-01-02T02:00:00+09:00",
          "tree_id": "9a1df97879a25ff71c9c74d7a7d085c9d485357c",
          "url": "https://github.com/example/fixture/commit/c84634d0942d05ebe122c02d7b7fb39ff3bfd489"
        },
        "date": 1767317400000,
        "tool": "customBiggerIsBetter",
        "benches": [
          {
            "name": "requests",
            "value": 1510.0,
            "unit": "req/s",
            "range": "3%"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.org",
            "name": "Dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": null,
          "message": "change 1",
          "timestamp": "2026-01-02T02:00:00+09:00",
          "tree_id": "9a1df97879a25ff71c9c74d7a7d085c9d485357c",
          "url": "https://github.com/example/fixture/commit/"
        },
        "date": 1767317400000,
        "tool": "customBiggerIsBetter",
        "benches": [
          {
            "name": "requests",
            "value": 1499.0,
            "unit": "req/s"
          }
        ]
      }
    ]
  }
}
