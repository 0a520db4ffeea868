"""The weekly ETF analyst: quant → news per sector → senior analyst → managing director → dashboard."""
