"""pipeline/ops"""
