"""Test kit for findesk and its users: scripted fake models (``fake_models``) and a local fake
server speaking the Anthropic and OpenAI wire formats (``fake_provider_server``). Nothing here
reaches the network."""
