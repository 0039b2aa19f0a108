"""The Scrapy peer of the peers bench: a CrawlSpider that follows every link on the seed's host.

Run as: python3 -m scrapy runspider scrapy-spider.py -a seed=URL -a counts_file=FILE

Settings as the bench's other crawlers: 8 requests in flight, no delay, robots.txt not read, no
autothrottle. Pages are counted as they arrive (every response, whatever its status, through the
response_received signal) and written to counts_file when the spider closes, with Scrapy's stats.
"""
import json
from urllib.parse import urlparse

from scrapy import signals
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class DocsSpider(CrawlSpider):
    name = 'peers-bench'
    custom_settings = {
        'CONCURRENT_REQUESTS': 8,
        'CONCURRENT_REQUESTS_PER_DOMAIN': 8,
        'DOWNLOAD_DELAY': 0,
        'ROBOTSTXT_OBEY': False,
        'AUTOTHROTTLE_ENABLED': False,
        'TELNETCONSOLE_ENABLED': False,
        'LOG_LEVEL': 'INFO',
        # Silences the deprecation warning of Scrapy 2.7+; the fingerprint does not change the crawl.
        'REQUEST_FINGERPRINTER_IMPLEMENTATION': '2.7',
    }

    def __init__(self, seed, counts_file, *args, **kwargs):
        self.start_urls = [seed]
        self.counts_file = counts_file
        self.pages = 0
        self.other = 0
        # Scrapy matches allow_domains against the host with its port (127.0.0.1:PORT), so the
        # rule is built from the seed rather than written in the class.
        self.rules = (Rule(LinkExtractor(allow_domains=[urlparse(seed).netloc]), callback='parse_page', follow=True),)
        super().__init__(*args, **kwargs)

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.count_response, signal=signals.response_received)
        return spider

    def count_response(self, response, request, spider):
        content_type = response.headers.get('Content-Type', b'').decode('latin-1').lower()
        if 200 <= response.status < 300 and content_type.startswith('text/html'):
            self.pages += 1
        elif 200 <= response.status < 300:
            self.other += 1

    def parse_page(self, response):
        return []

    def closed(self, reason):
        stats = self.crawler.stats.get_stats()
        with open(self.counts_file, 'w') as f:
            json.dump(
                {
                    'pages': self.pages,
                    'other': self.other,
                    'requests': stats.get('downloader/request_count', 0),
                    'finishReason': reason,
                },
                f,
            )
