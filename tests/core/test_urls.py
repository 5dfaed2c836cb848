"""URL identity (core/urls.py): one key for one page, whatever spelling cites it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge_harness.core.urls import domain_of, normalize_url


@pytest.mark.parametrize(
    "spelling",
    [
        "https://example.org/guide",
        "https://example.org/guide/",
        "HTTPS://Example.ORG/guide",
        "https://www.example.org/guide",
        "https://example.org./guide",  # the fully qualified name of the same host
        "https://example.org:443/guide",
        "https://example.org/guide#install",
        "https://example.org/guide?utm_source=x&utm_medium=y",
        "https://example.org/guide?fbclid=1&gclid=2&ref_src=twsrc",
        "  https://example.org/guide  ",
    ],
)
def test_spellings_of_one_page_share_a_key(spelling: str) -> None:
    assert normalize_url(spelling) == "https://example.org/guide"


def test_what_names_another_page_stays_apart() -> None:
    keys = {
        normalize_url(u)
        for u in [
            "https://example.org/guide",
            "http://example.org/guide",  # another scheme
            "https://example.org:8443/guide",  # a port that is not the default
            "https://docs.example.org/guide",  # another host
            "https://example.org/Guide",  # paths are case-sensitive
            "https://example.org/guide?page=2",  # a real query parameter
        ]
    }
    assert len(keys) == 6


def test_query_parameters_are_sorted_and_the_root_keeps_its_slash() -> None:
    assert normalize_url("https://example.org/s?b=2&a=1") == normalize_url("https://example.org/s?a=1&b=2")
    assert normalize_url("https://example.org") == "https://example.org/"
    assert normalize_url("https://例え.jp/記事/") == "https://例え.jp/記事"


def test_domain_is_the_host_without_www() -> None:
    assert domain_of("https://WWW.Example.org:8080/a?b=c") == "example.org"
    assert domain_of("https://docs.example.org/") == "docs.example.org"
    assert domain_of("https://www.example.org./a") == "example.org"
    assert domain_of("not a url") == ""


_PATH = st.lists(st.text(alphabet="abcXYZ09-_.~記事", min_size=1, max_size=6), max_size=4).map("/".join)
_QUERY = st.lists(st.tuples(st.sampled_from(["a", "q", "utm_x", "fbclid", "page"]), st.text("xyz12", max_size=3)))


@given(
    scheme=st.sampled_from(["http", "https", "HTTPS"]),
    host=st.sampled_from(["example.org", "www.example.org", "Example.ORG", "example.org.", "127.0.0.1"]),
    port=st.sampled_from(["", ":80", ":443", ":8080"]),
    path=_PATH,
    query=_QUERY,
    fragment=st.sampled_from(["", "#top", "#記事"]),
)
def test_the_key_is_its_own_key(
    scheme: str, host: str, port: str, path: str, query: list[tuple[str, str]], fragment: str
) -> None:
    q = "&".join(f"{k}={v}" for k, v in query)
    url = f"{scheme}://{host}{port}/{path}" + (f"?{q}" if q else "") + fragment
    key = normalize_url(url)
    assert normalize_url(key) == key
    assert "#" not in key and "utm_" not in key and "fbclid" not in key
    assert domain_of(key) == domain_of(url)
