"""The agent metrics: ToolCallAccuracy, AgentGoalAccuracy, TopicAdherence."""
